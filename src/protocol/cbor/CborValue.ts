/** The CBOR tags this profile uses: 0 (RFC 3339 date-time text) and 1 (epoch seconds). */
export class CborTag {
  constructor(
    readonly tag: 0 | 1,
    readonly value: CborValue,
  ) {}
}

/**
 * The subset of CBOR the x402+cbor profile speaks: integers (number when safe, else bigint), byte and
 * text strings, booleans, null, arrays, maps with text keys, tags 0 and 1. No floats, no undefined.
 */
export type CborValue =
  number | bigint | string | Uint8Array | boolean | null | CborValue[] | CborMap | CborTag;

export type CborMap = Map<string, CborValue>;

/** Largest CBOR input decoded, in bytes (RELIABILITY.md). */
export const MAX_CBOR_BYTES = 64 * 1024;
/** Deepest nesting of arrays, maps and tags decoded. */
export const MAX_CBOR_DEPTH = 16;
