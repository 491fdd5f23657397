import { Encoder, Tag } from "cbor-x";
import { CborError } from "./CborError.js";
import { CborTag, MAX_CBOR_UINT, type CborValue } from "./CborValue.js";
import { bytesOfCheckedHex, compareBytes } from "../../common/bytes.js";

// cbor-x is not deterministic by default: no records, no tagged typed arrays, no float shortcuts,
// map lengths written exactly. Key order and integer widths are fixed below, before it sees a value.
const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: false,
  variableMapSize: true,
  tagUint8Array: false,
  pack: false,
  structuredClone: false,
  useFloat32: 0,
  largeBigIntToFloat: false,
});

const TWO_32 = 2n ** 32n;
const TWO_64 = 2n ** 64n;

/**
 * Deterministic CBOR (RFC 8949 §4.2.1) of `value`: shortest integers and lengths, definite lengths,
 * map keys sorted by their encoded bytes, no floats; an unsigned integer past 64 bits as a bignum (tag 2,
 * its big-endian bytes without leading zeros: the preferred serialization). Throws {@link CborError} for
 * a value the profile cannot carry (a fraction, an integer above 2^256 − 1 or below −2^64 + 1, an unknown
 * type).
 */
export function encodeCanonical(value: CborValue): Uint8Array {
  const encoded = encoder.encode(prepare(value, "$"));
  return new Uint8Array(encoded.buffer.slice(encoded.byteOffset, encoded.byteOffset + encoded.byteLength));
}

function prepare(value: CborValue, at: string): unknown {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value))
      throw new CborError("float", "not an integer (floats are not allowed)", at);
    return integer(BigInt(value), at);
  }
  if (typeof value === "bigint") return integer(value, at);
  if (typeof value === "string" || typeof value === "boolean" || value === null) return value;
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map((item, index) => prepare(item, `${at}[${index}]`));
  if (value instanceof CborTag) return new Tag(prepare(value.value, `${at}<tag ${value.tag}>`), value.tag);
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([key, item]) => {
      if (typeof key !== "string") throw new CborError("key_type", "map keys must be text", at);
      return { key, bytes: encodedKey(key), item: prepare(item, `${at}.${key}`) };
    });
    entries.sort((a, b) => compareBytes(a.bytes, b.bytes));
    return new Map(entries.map(({ key, item }) => [key, item]));
  }
  throw new CborError("wrong_type", `cannot encode a ${typeof value}`, at);
}

// The profile's maps reuse a handful of keys: remember their encodings instead of encoding each time.
const keyCache = new Map<string, Uint8Array>();
const KEY_CACHE_LIMIT = 512;

function encodedKey(key: string): Uint8Array {
  let bytes = keyCache.get(key);
  if (bytes === undefined) {
    bytes = Uint8Array.from(encoder.encode(key));
    if (keyCache.size < KEY_CACHE_LIMIT) keyCache.set(key, bytes);
  }
  return bytes;
}

/**
 * cbor-x writes numbers below 2^32 in shortest form but widens bigints to 8 bytes: hand it the right one.
 * Past 64 bits, the bignum is built here (tag 2 around the minimal big-endian bytes), not left to cbor-x.
 */
function integer(value: bigint, at: string): number | bigint | Tag {
  if (value >= TWO_64) {
    if (value > MAX_CBOR_UINT) throw new CborError("out_of_range", "integer above 2^256 - 1", at);
    return new Tag(bignumBytes(value), 2);
  }
  // -2^64 is valid CBOR, but cbor-x writes it as a bignum: the profile stops one short (no tag 3).
  if (value <= -TWO_64) throw new CborError("out_of_range", "negative integer outside 64 bits", at);
  return value < TWO_32 && value >= -TWO_32 ? Number(value) : value;
}

/** The big-endian bytes of `value` (> 0), the first one non-zero. */
function bignumBytes(value: bigint): Uint8Array {
  const hex = value.toString(16);
  return bytesOfCheckedHex(hex.length % 2 === 0 ? hex : `0${hex}`);
}
