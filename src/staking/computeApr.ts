/** Decimal places of the APR percentages. */
const PERCENT_DECIMALS = 4;

export interface AprInput {
  /** STRK minted per year, in fri. */
  yearlyMint: bigint;
  /** Network STRK stake, in fri. */
  strkStake: bigint;
  /** Network BTC stake, 18-decimal normalised. */
  btcStake: bigint;
  /** alpha, in basis points. */
  btcShareBps: number;
  commissionBps: number;
  /** USD prices as decimal strings. */
  strkUsd: string;
  btcUsd: string;
}

/** A yearly rate as an exact fraction (`numerator / denominator`, e.g. 0.0855 = 855/10000). */
export interface Rate {
  numerator: bigint;
  denominator: bigint;
}

/**
 * STRK APR = Y·(1−α)/S·(1−c); BTC APR = Y·α·P_STRK/(B·P_BTC)·(1−c). Exact integer arithmetic: the
 * rates as fractions, the percentages as decimal strings with 4 places (truncated); null when a
 * divisor is zero. An APR: no compounding (see computeApy).
 */
export function computeApr(input: AprInput): {
  strkPercent: string | null;
  btcPercent: string | null;
  strkRate: Rate | null;
  btcRate: Rate | null;
} {
  const alpha = BigInt(input.btcShareBps);
  const net = 10_000n - BigInt(input.commissionBps);
  const [strkPrice, strkPriceDen] = parseDecimal(input.strkUsd);
  const [btcPrice, btcPriceDen] = parseDecimal(input.btcUsd);
  const strkRate = rate(input.yearlyMint * (10_000n - alpha) * net, input.strkStake * 10n ** 8n);
  const btcRate = rate(
    input.yearlyMint * alpha * strkPrice * btcPriceDen * net,
    input.btcStake * btcPrice * strkPriceDen * 10n ** 8n,
  );
  return { strkPercent: formatPercent(strkRate), btcPercent: formatPercent(btcRate), strkRate, btcRate };
}

function rate(numerator: bigint, denominator: bigint): Rate | null {
  return denominator === 0n ? null : { numerator, denominator };
}

/** A rate as a percentage with {@link PERCENT_DECIMALS} places, truncated: 855/10000 → "8.5500". */
export function formatPercent(value: Rate | null): string | null {
  if (value === null) return null;
  const scaled = (value.numerator * 100n * 10n ** BigInt(PERCENT_DECIMALS)) / value.denominator;
  const text = scaled.toString().padStart(PERCENT_DECIMALS + 1, "0");
  return `${text.slice(0, -PERCENT_DECIMALS)}.${text.slice(-PERCENT_DECIMALS)}`;
}

/** "0.15" → [15n, 100n]. */
function parseDecimal(text: string): [bigint, bigint] {
  const [whole = "0", fraction = ""] = text.split(".");
  return [BigInt(whole + fraction), 10n ** BigInt(fraction.length)];
}
