import type { ChainState, OperationPlan } from "../ChainAdapter.js";
import { AmountTooHighError } from "../errors.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/**
 * `exit_delegation_pool_intent(amount)`: the new intent replaces a pending one (its amount returns to
 * the pool first) and restarts the clock; `0` cancels.
 */
export function planUnstakeIntent(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; amount: bigint },
): OperationPlan {
  const { userAddress, token, amount } = input;
  const pool = poolRules.pool(state, token);
  const member = poolRules.member(state, token, userAddress);
  const total = member.amount + member.unpoolAmount;
  if (amount > total) throw new AmountTooHighError(amount, total);
  const cancelled = amount === 0n;
  const unpoolTime = cancelled ? null : state.now + (state.validator.exitWaitWindowSeconds ?? 0);
  return {
    operation: "unstakeIntent",
    userAddress,
    pool,
    amount,
    calls: [poolCalls.exitDelegationPoolIntent(pool.poolAddress, amount)],
    fields: {
      cancelled,
      replacedAmount: member.unpoolAmount.toString(),
      estimatedUnpoolTime: unpoolTime === null ? null : new Date(unpoolTime * 1000).toISOString(),
      exitWaitWindowSeconds: state.validator.exitWaitWindowSeconds,
    },
    effects: [
      { type: "setAmount", token, member: userAddress, amount: total - amount },
      { type: "setUnpool", token, member: userAddress, amount, time: unpoolTime },
    ],
    position: { pool, member: userAddress },
  };
}
