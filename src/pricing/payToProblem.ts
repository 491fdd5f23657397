import { isEvmAddress } from "../protocol/checksumAddress.js";
import { PATTERNS } from "../protocol/schemas.js";
import { isSolanaAddress } from "../protocol/isSolanaAddress.js";

/**
 * What is wrong with `payTo` as a recipient on `network`, or `undefined` when it can be paid: on `eip155:*`
 * a 20-byte hex address (EIP-55 checksum checked when mixed-case), never the zero address; elsewhere a
 * single token without spaces. A wrong payee takes every payment, so it is refused at start-up.
 */
export function payToProblem(payTo: string, network: string): string | undefined {
  if (network.startsWith("eip155:")) {
    if (!PATTERNS.evmAddress.test(payTo)) {
      return `expected a 0x-prefixed 20-byte hex address (0x + 40 hex digits) on ${network}, got ${JSON.stringify(payTo)}`;
    }
    if (/^0x0{40}$/.test(payTo)) return "the zero address cannot be paid to (what it receives is burnt)";
    if (!isEvmAddress(payTo)) {
      return "mixed-case address with a wrong EIP-55 checksum (a typo?): write it all lower-case or with its checksum";
    }
    return undefined;
  }
  if (network.startsWith("solana:")) {
    if (!isSolanaAddress(payTo)) {
      return `expected a base58 Solana address (32 bytes) on ${network}, got ${JSON.stringify(payTo)}`;
    }
    return undefined;
  }
  if (!/^[\x21-\x7e]{1,128}$/.test(payTo))
    return "expected an address: 1–128 printable characters, no spaces";
  return undefined;
}
