/** The Starknet field prime: every felt is below it. */
export const FELT_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;
export const U128_MAX = 2n ** 128n - 1n;

export const FELT_PATTERN = /^0x[0-9a-fA-F]{1,64}$/;

/** Canonical text of a felt used in answers and calldata: `0x` + 64 lowercase hex digits. */
export function formatFelt(value: bigint): string {
  return "0x" + value.toString(16).padStart(64, "0");
}

/** Parse a felt already validated by the request schema (`0x` + 1–64 hex digits, below the prime). */
export function parseFelt(text: string): bigint {
  if (!FELT_PATTERN.test(text)) throw new RangeError(`not a felt: ${text}`);
  const value = BigInt(text);
  if (value >= FELT_PRIME) throw new RangeError(`felt out of range: ${text}`);
  return value;
}
