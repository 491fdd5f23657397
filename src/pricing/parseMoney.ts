import { BaseError } from "../common/BaseError.js";

export class PriceError extends BaseError {
  constructor(message: string) {
    super("invalid_price", message);
  }
}

/**
 * Convert a money string (`"$0.01"`, `"0.01"`) into the asset's smallest unit with integer arithmetic.
 * A price with more decimal places than the asset has is refused, never rounded; so is zero.
 */
export function parseMoney(text: string, decimals: number): bigint {
  const match = /^\$?(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(text.trim());
  if (!match) throw new PriceError(`${JSON.stringify(text)} is not a money string such as "$0.01"`);
  const whole = match[1] as string;
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) {
    throw new PriceError(`${JSON.stringify(text)} has more than the asset's ${decimals} decimal places`);
  }
  const atomic = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
  if (atomic === 0n)
    throw new PriceError(`${JSON.stringify(text)} is zero: leave a free route out of the table`);
  return atomic;
}
