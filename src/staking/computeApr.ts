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

/**
 * STRK APR = Y·(1−α)/S·(1−c); BTC APR = Y·α·P_STRK/(B·P_BTC)·(1−c). Exact integer arithmetic, percentages
 * as decimal strings with 4 places (truncated); null when a divisor is zero. An APR: no compounding.
 */
export function computeApr(input: AprInput): { strkPercent: string | null; btcPercent: string | null } {
  const alpha = BigInt(input.btcShareBps);
  const net = 10_000n - BigInt(input.commissionBps);
  const scale = 100n * 10n ** BigInt(PERCENT_DECIMALS);
  const strk = ratio(input.yearlyMint * (10_000n - alpha) * net * scale, input.strkStake * 10n ** 8n);
  const [strkPrice, strkPriceDen] = parseDecimal(input.strkUsd);
  const [btcPrice, btcPriceDen] = parseDecimal(input.btcUsd);
  const btc = ratio(
    input.yearlyMint * alpha * strkPrice * btcPriceDen * net * scale,
    input.btcStake * btcPrice * strkPriceDen * 10n ** 8n,
  );
  return { strkPercent: formatScaled(strk), btcPercent: formatScaled(btc) };
}

function ratio(numerator: bigint, denominator: bigint): bigint | null {
  return denominator === 0n ? null : numerator / denominator;
}

/** "0.15" → [15n, 100n]. */
function parseDecimal(text: string): [bigint, bigint] {
  const [whole = "0", fraction = ""] = text.split(".");
  return [BigInt(whole + fraction), 10n ** BigInt(fraction.length)];
}

function formatScaled(value: bigint | null): string | null {
  if (value === null) return null;
  const text = value.toString().padStart(PERCENT_DECIMALS + 1, "0");
  return `${text.slice(0, -PERCENT_DECIMALS)}.${text.slice(-PERCENT_DECIMALS)}`;
}
