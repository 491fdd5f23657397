import type { ChainState, OperationPlan } from "../ChainAdapter.js";
import { PoolMemberExistsError } from "../errors.js";
import { formatFelt } from "../felt.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/** `approve` + `enter_delegation_pool(reward_address, amount)`. */
export function planStake(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; amount: bigint; rewardAddress: bigint },
): OperationPlan {
  const { userAddress, token, amount, rewardAddress } = input;
  const pool = poolRules.pool(state, token);
  poolRules.nonZero(amount);
  poolRules.validatorActive(state);
  if (state.member(token, userAddress))
    throw new PoolMemberExistsError(formatFelt(userAddress), token.symbol);
  poolRules.canPay(state, userAddress, token, amount);
  return {
    operation: "stake",
    userAddress,
    pool,
    amount,
    calls: [
      poolCalls.approve(token.address, pool.poolAddress, amount),
      poolCalls.enterDelegationPool(pool.poolAddress, rewardAddress, amount),
    ],
    fields: {
      rewardAddress: formatFelt(rewardAddress),
      effectiveFromEpoch: state.validator.currentEpoch + 2,
    },
    effects: [
      { type: "debit", token, address: userAddress, amount },
      { type: "enter", token, member: userAddress, rewardAddress, amount },
    ],
    position: { pool, member: userAddress },
  };
}
