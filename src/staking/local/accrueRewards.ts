/** Seconds in the year of the APR (365 days). */
export const SECONDS_PER_YEAR = 365n * 86_400n;

/** How fast one pool earns: its share of the yearly mint and of the network stake. */
export interface RewardRate {
  /** STRK minted per year, in fri. */
  yearlyMint: bigint;
  /** The pool kind's share of the mint, in basis points (STRK 1 − alpha, BTC alpha). */
  shareBps: bigint;
  /** Network stake of the pool kind, 18-decimal normalised. */
  networkStake: bigint;
  epochLengthSeconds: bigint;
  commissionBps: bigint;
  /** Decimals of the pooled token (amounts are normalised to 18). */
  decimals: number;
}

/** A pooled amount that counts for rewards from `epoch` on (balance changes count two epochs later). */
export interface BalanceCheckpoint {
  epoch: number;
  amount: bigint;
}

/**
 * Rewards in fri, net of commission, earned over the epochs `[fromEpoch, toEpoch)` by a member whose
 * pooled amount follows `checkpoints` (sorted by epoch; before the first one the amount is zero).
 */
export function accrueRewards(
  checkpoints: readonly BalanceCheckpoint[],
  fromEpoch: number,
  toEpoch: number,
  rate: RewardRate,
): bigint {
  if (toEpoch <= fromEpoch || rate.networkStake === 0n) return 0n;
  const scale = 10n ** BigInt(18 - rate.decimals);
  const numerator =
    rate.yearlyMint * rate.shareBps * rate.epochLengthSeconds * (10_000n - rate.commissionBps);
  const denominator = SECONDS_PER_YEAR * rate.networkStake * 10_000n * 10_000n;
  let total = 0n;
  for (let i = 0; i < checkpoints.length; i++) {
    const checkpoint = checkpoints[i]!;
    const next = checkpoints[i + 1];
    const start = Math.max(checkpoint.epoch, fromEpoch);
    const end = Math.min(next === undefined ? toEpoch : next.epoch, toEpoch);
    if (end <= start || checkpoint.amount === 0n) continue;
    total += (checkpoint.amount * scale * BigInt(end - start) * numerator) / denominator;
  }
  return total;
}
