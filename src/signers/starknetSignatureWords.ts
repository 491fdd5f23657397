import { STARK_FIELD_PRIME } from "../protocol/cbor/profile.js";
import { bytesOfCheckedHex, hexOfBytes } from "../common/bytes.js";

/** Bytes of one signature word (a felt, big-endian). */
export const STARKNET_WORD_BYTES = 32;
/** Most felts a layer-2 signature may carry (a multisig or guardian account signs with several pairs). */
export const MAX_STARKNET_SIGNATURE_WORDS = 16;

/**
 * A layer-2 `signature` field: the account's signature array (felts), each word 32 bytes big-endian,
 * concatenated — `[r, s]` for a Stark key, whatever the account's `is_valid_signature` takes for a
 * contract account. Throws a RangeError for any other length, or a word at or above the field prime.
 */
export function decodeStarknetSignature(bytes: Uint8Array): string[] {
  if (bytes.length === 0 || bytes.length % STARKNET_WORD_BYTES !== 0) {
    throw new RangeError(
      `a layer-2 signature is whole ${STARKNET_WORD_BYTES}-byte felts, got ${bytes.length} bytes`,
    );
  }
  const count = bytes.length / STARKNET_WORD_BYTES;
  if (count > MAX_STARKNET_SIGNATURE_WORDS) {
    throw new RangeError(
      `a layer-2 signature has at most ${MAX_STARKNET_SIGNATURE_WORDS} felts, got ${count}`,
    );
  }
  const words: string[] = [];
  for (let index = 0; index < count; index++) {
    const word = bytes.subarray(index * STARKNET_WORD_BYTES, (index + 1) * STARKNET_WORD_BYTES);
    const value = BigInt(`0x${hexOfBytes(word)}`);
    if (value >= STARK_FIELD_PRIME)
      throw new RangeError(`signature felt ${index} is not below the field prime`);
    words.push(`0x${value.toString(16)}`);
  }
  return words;
}

/** Felts (hex or bigint) to the layer-2 `signature` bytes. */
export function encodeStarknetSignature(words: ReadonlyArray<string | bigint>): Uint8Array {
  const bytes = new Uint8Array(words.length * STARKNET_WORD_BYTES);
  words.forEach((word, index) => {
    const value = BigInt(word);
    if (value < 0n || value >= STARK_FIELD_PRIME) throw new RangeError(`felt ${index} is out of range`);
    bytes.set(bytesOfCheckedHex(value.toString(16).padStart(64, "0")), index * STARKNET_WORD_BYTES);
  });
  return bytes;
}
