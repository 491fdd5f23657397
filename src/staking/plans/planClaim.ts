import type { ChainState, OperationPlan } from "../ChainAdapter.js";
import { formatFelt } from "../felt.js";
import { poolCalls } from "../poolCalls.js";
import type { TokenInfo } from "../tokens.js";
import { poolRules } from "./poolRules.js";

/** `claim_rewards(pool_member)`: pays the unclaimed rewards, in STRK, to the reward address. */
export function planClaim(
  state: ChainState,
  input: { userAddress: bigint; token: TokenInfo; strk: TokenInfo },
): OperationPlan {
  const { userAddress, token, strk } = input;
  const pool = poolRules.pool(state, token);
  const member = poolRules.member(state, token, userAddress);
  const amount = member.unclaimedRewards;
  return {
    operation: "claim",
    userAddress,
    pool,
    amount,
    calls: [poolCalls.claimRewards(pool.poolAddress, userAddress)],
    fields: {
      recipient: formatFelt(member.rewardAddress),
      rewardToken: { address: formatFelt(strk.address), symbol: strk.symbol, decimals: strk.decimals },
    },
    effects: [
      { type: "takeRewards", token, member: userAddress, amount },
      { type: "credit", token: strk, address: member.rewardAddress, amount },
    ],
    position: { pool, member: userAddress },
  };
}
