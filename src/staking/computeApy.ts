import { formatPercent, type Rate } from "./computeApr.js";

/** Fixed-point scale of the compounding: 40 decimal digits, far below the 4 places shown. */
const SCALE = 10n ** 40n;

/**
 * APY from an APR when rewards are restaked `periodsPerYear` times a year (once per epoch):
 * (1 + APR/n)^n − 1, in integer fixed-point arithmetic (no floats), as a percentage with 4 places
 * (truncated), like the APR beside it.
 */
export function computeApy(apr: Rate | null, periodsPerYear: number): string | null {
  if (apr === null) return null;
  if (!Number.isSafeInteger(periodsPerYear) || periodsPerYear < 1) {
    throw new RangeError(`periodsPerYear must be a positive integer, got ${periodsPerYear}`);
  }
  const n = BigInt(periodsPerYear);
  const perPeriod = SCALE + (apr.numerator * SCALE) / (apr.denominator * n);
  let result = SCALE;
  let base = perPeriod;
  for (let exponent = n; exponent > 0n; exponent >>= 1n) {
    if (exponent & 1n) result = (result * base) / SCALE;
    base = (base * base) / SCALE;
  }
  return formatPercent({ numerator: result - SCALE, denominator: SCALE });
}
