import type { ChainState, OperationPlan } from "../ChainAdapter.js";
import { CallerCannotAddToPoolError } from "../errors.js";
import { formatFelt } from "../felt.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/**
 * `approve` + `add_to_delegation_pool(pool_member, amount)`, paid by `userAddress`, who must be the member
 * or its reward address.
 */
export function planAddToPool(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; amount: bigint; poolMember: bigint },
): OperationPlan {
  const { userAddress, token, amount, poolMember } = input;
  const pool = poolRules.pool(state, token);
  poolRules.nonZero(amount);
  poolRules.validatorActive(state);
  const member = poolRules.member(state, token, poolMember);
  if (userAddress !== poolMember && userAddress !== member.rewardAddress) {
    throw new CallerCannotAddToPoolError(formatFelt(userAddress), formatFelt(poolMember));
  }
  poolRules.canPay(state, userAddress, token, amount);
  return {
    operation: "addToPool",
    userAddress,
    pool,
    amount,
    calls: [
      poolCalls.approve(token.address, pool.poolAddress, amount),
      poolCalls.addToDelegationPool(pool.poolAddress, poolMember, amount),
    ],
    fields: { poolMember: formatFelt(poolMember), effectiveFromEpoch: state.validator.currentEpoch + 2 },
    effects: [
      { type: "debit", token, address: userAddress, amount },
      { type: "setAmount", token, member: poolMember, amount: member.amount + amount },
    ],
    position: { pool, member: poolMember },
  };
}
