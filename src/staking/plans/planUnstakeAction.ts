import type { ChainState, Effect, OperationPlan } from "../ChainAdapter.js";
import { IntentWindowNotFinishedError, MissingUnstakeIntentError } from "../errors.js";
import { formatFelt } from "../felt.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/**
 * `exit_delegation_pool_action(pool_member)`: after the exit window, pays `unpool_amount` back to the
 * member. A member left with nothing staked is removed, and its unclaimed rewards go to its reward address.
 */
export function planUnstakeAction(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; strk: TokenInfo },
): OperationPlan {
  const { userAddress, token, strk } = input;
  const pool = poolRules.pool(state, token);
  const member = poolRules.member(state, token, userAddress);
  if (member.unpoolTime === null) throw new MissingUnstakeIntentError(formatFelt(userAddress));
  if (state.now < member.unpoolTime) {
    throw new IntentWindowNotFinishedError(member.unpoolTime, member.unpoolTime - state.now);
  }
  const amount = member.unpoolAmount;
  const effects: Effect[] = [
    { type: "credit", token, address: userAddress, amount },
    { type: "setUnpool", token, member: userAddress, amount: 0n, time: null },
  ];
  const removed = member.amount === 0n;
  if (removed) {
    effects.push(
      { type: "takeRewards", token, member: userAddress, amount: member.unclaimedRewards },
      { type: "credit", token: strk, address: member.rewardAddress, amount: member.unclaimedRewards },
      { type: "remove", token, member: userAddress },
    );
  }
  return {
    operation: "unstakeAction",
    userAddress,
    pool,
    amount,
    calls: [poolCalls.exitDelegationPoolAction(pool.poolAddress, userAddress)],
    fields: {
      expectedAmount: amount.toString(),
      recipient: formatFelt(userAddress),
      memberRemoved: removed,
      rewardsPaid: removed ? member.unclaimedRewards.toString() : "0",
    },
    effects,
    position: { pool, member: userAddress },
  };
}
