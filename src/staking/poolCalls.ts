import type { StarknetCall } from "./ChainAdapter.js";
import { formatFelt } from "./felt.js";

const U128 = 2n ** 128n;

/** The unsigned calls of the delegation pool and ERC-20 entry points (hex addresses, decimal integers). */
export const poolCalls = {
  /** ERC-20 `approve(spender, amount: u256)`; the u256 is `[low, high]`. */
  approve(token: bigint, spender: bigint, amount: bigint): StarknetCall {
    return call(token, "approve", [
      formatFelt(spender),
      (amount % U128).toString(),
      (amount / U128).toString(),
    ]);
  },
  enterDelegationPool(pool: bigint, rewardAddress: bigint, amount: bigint): StarknetCall {
    return call(pool, "enter_delegation_pool", [formatFelt(rewardAddress), amount.toString()]);
  },
  addToDelegationPool(pool: bigint, poolMember: bigint, amount: bigint): StarknetCall {
    return call(pool, "add_to_delegation_pool", [formatFelt(poolMember), amount.toString()]);
  },
  exitDelegationPoolIntent(pool: bigint, amount: bigint): StarknetCall {
    return call(pool, "exit_delegation_pool_intent", [amount.toString()]);
  },
  exitDelegationPoolAction(pool: bigint, poolMember: bigint): StarknetCall {
    return call(pool, "exit_delegation_pool_action", [formatFelt(poolMember)]);
  },
  claimRewards(pool: bigint, poolMember: bigint): StarknetCall {
    return call(pool, "claim_rewards", [formatFelt(poolMember)]);
  },
};

function call(contract: bigint, entrypoint: string, calldata: string[]): StarknetCall {
  return { contractAddress: formatFelt(contract), entrypoint, calldata };
}
