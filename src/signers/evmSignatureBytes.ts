import { hexOfBytes } from "../common/bytes.js";
/** Bytes of an EOA's signature: `r ‖ s ‖ v`. */
export const EVM_SIGNATURE_BYTES = 65;
/** secp256k1's group order. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * An `evm` intent's `signature` field: the 65 bytes `r ‖ s ‖ v` an EVM wallet returns for EIP-712 typed
 * data, `v` 27 or 28, `r` and `s` in `[1, n)`, `s` in the lower half (EIP-2: one signature per message,
 * no malleable twin). Returns it as hex for viem; throws a RangeError for anything else.
 */
export function decodeEvmSignature(bytes: Uint8Array): `0x${string}` {
  if (bytes.length !== EVM_SIGNATURE_BYTES) {
    throw new RangeError(`an EVM signature is ${EVM_SIGNATURE_BYTES} bytes (r, s, v), got ${bytes.length}`);
  }
  const word = (from: number) => BigInt(`0x${hexOfBytes(bytes.subarray(from, from + 32))}`);
  const r = word(0);
  const s = word(32);
  const v = bytes[64]!;
  if (v !== 27 && v !== 28) throw new RangeError(`an EVM signature's v is 27 or 28, got ${v}`);
  if (r === 0n || r >= SECP256K1_N) throw new RangeError("an EVM signature's r is out of range");
  if (s === 0n || s > SECP256K1_N / 2n)
    throw new RangeError("an EVM signature's s is not in the lower half (EIP-2)");
  return `0x${hexOfBytes(bytes)}`;
}
