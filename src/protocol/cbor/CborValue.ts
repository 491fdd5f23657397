/** The CBOR tags this profile uses: 0 (RFC 3339 date-time text) and 1 (epoch seconds). */
export class CborTag {
  constructor(
    readonly tag: 0 | 1,
    readonly value: CborValue,
  ) {}
}

/**
 * The subset of CBOR the x402+cbor profile speaks: integers (number when safe, else bigint; unsigned
 * ones up to {@link MAX_CBOR_UINT}, past 64 bits as tag 2 bignums on the wire), byte and text strings,
 * booleans, null, arrays, maps with text keys, tags 0 and 1. No floats, no undefined.
 */
export type CborValue =
  number | bigint | string | Uint8Array | boolean | null | CborValue[] | CborMap | CborTag;

export type CborMap = Map<string, CborValue>;

/** Largest unsigned integer of the profile: 2^256 − 1 (an amount of any ERC-20 or Starknet u256). */
export const MAX_CBOR_UINT = 2n ** 256n - 1n;
/** Bytes of the largest bignum (tag 2) content. */
export const MAX_BIGNUM_BYTES = 32;

/** Largest CBOR input decoded, in bytes (docs/cbor.md, "Decoder limits"). */
export const MAX_CBOR_BYTES = 64 * 1024;
/** Deepest nesting of arrays, maps and tags decoded (the profile's deepest message nests 4). */
export const MAX_CBOR_DEPTH = 16;
/**
 * Most data items in one decoded message, keys and values alike (docs/cbor.md): the densest message of
 * the profile, a 64 KiB receipt aggregate of ~1,900 members, fits twice (see MAX_CBOR_RECORD_ITEMS).
 */
export const MAX_CBOR_ITEMS = 4096;
/**
 * Most data items in a message of fixed shape that a client sends (a PaymentSignature, a claim, a signed
 * claim, a facilitator request): the largest, a PaymentSignature with a 16-grant chain, holds 27.
 */
export const MAX_CBOR_RECORD_ITEMS = 64;
