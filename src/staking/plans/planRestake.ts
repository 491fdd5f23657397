import type { ChainState, Effect, OperationPlan, StarknetCall } from "../ChainAdapter.js";
import { NothingToRestakeError } from "../errors.js";
import { formatFelt } from "../felt.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/**
 * Claim the rewards of the `token` pool, then `approve` + `add_to_delegation_pool` them into the STRK
 * pool (`enter_delegation_pool` when not yet a member there). The user's wallet pays the add.
 */
export function planRestake(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; strk: TokenInfo },
): OperationPlan {
  const { userAddress, token, strk } = input;
  const pool = poolRules.pool(state, token);
  const member = poolRules.member(state, token, userAddress);
  const amount = member.unclaimedRewards;
  if (amount === 0n) throw new NothingToRestakeError(formatFelt(userAddress));
  const strkPool = poolRules.pool(state, strk);
  poolRules.validatorActive(state);
  const strkMember = state.member(strk, userAddress);
  const incoming = member.rewardAddress === userAddress ? amount : 0n;
  poolRules.canPay(state, userAddress, strk, amount, incoming);
  const calls: StarknetCall[] = [
    poolCalls.claimRewards(pool.poolAddress, userAddress),
    poolCalls.approve(strk.address, strkPool.poolAddress, amount),
    strkMember
      ? poolCalls.addToDelegationPool(strkPool.poolAddress, userAddress, amount)
      : poolCalls.enterDelegationPool(strkPool.poolAddress, member.rewardAddress, amount),
  ];
  const effects: Effect[] = [
    { type: "takeRewards", token, member: userAddress, amount },
    { type: "credit", token: strk, address: member.rewardAddress, amount },
    { type: "debit", token: strk, address: userAddress, amount },
    strkMember
      ? { type: "setAmount", token: strk, member: userAddress, amount: strkMember.amount + amount }
      : { type: "enter", token: strk, member: userAddress, rewardAddress: member.rewardAddress, amount },
  ];
  return {
    operation: "restake",
    userAddress,
    pool,
    amount,
    calls,
    fields: {
      claimedFrom: token.symbol,
      restakedInto: { poolAddress: formatFelt(strkPool.poolAddress), symbol: strk.symbol },
      enteredStrkPool: strkMember === null,
      effectiveFromEpoch: state.validator.currentEpoch + 2,
    },
    effects,
    position: { pool: strkPool, member: userAddress },
  };
}
