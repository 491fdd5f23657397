import { keccak_256 } from "@noble/hashes/sha3";
import { PATTERNS } from "./schemas.js";

const encoder = new TextEncoder();

/**
 * The EIP-55 (mixed-case checksum) form of a 0x-prefixed 20-byte hex address: a hex letter is upper-case
 * where the matching nibble of keccak-256 of the lower-case hex is 8 or more. Throws a RangeError for
 * anything else. Our own few lines, so the paywall does not load viem to check a `payTo`.
 */
export function checksumAddress(address: string): string {
  if (!PATTERNS.evmAddress.test(address))
    throw new RangeError(`not a 20-byte hex address: ${JSON.stringify(address)}`);
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(encoder.encode(hex));
  let out = "0x";
  for (let i = 0; i < hex.length; i++) {
    const nibble = ((hash[i >> 1] as number) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? (hex[i] as string).toUpperCase() : (hex[i] as string);
  }
  return out;
}

/**
 * Whether `address` is a 0x-prefixed 20-byte hex address that is all lower-case or carries a correct
 * EIP-55 checksum (as viem's `isAddress` with `strict`: an all upper-case address must match it too).
 */
export function isEvmAddress(address: string): boolean {
  if (!PATTERNS.evmAddress.test(address)) return false;
  if (address === address.toLowerCase()) return true;
  return checksumAddress(address) === address;
}
