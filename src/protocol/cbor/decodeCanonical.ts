import { CborError } from "./CborError.js";
import { CborTag, MAX_CBOR_BYTES, MAX_CBOR_DEPTH, type CborMap, type CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";

/** RFC 3339 date-time as this profile writes it in tag 0: UTC, whole seconds, `Z`. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const MAX_UINT64 = 2n ** 64n - 1n;
const utf8 = new TextDecoder("utf-8", { fatal: true });

interface Head {
  major: number;
  info: number;
  /** The head's argument: a length, a count, an integer or a tag number. */
  arg: bigint;
}

/**
 * Decode one canonical CBOR item, refusing anything else with a {@link CborError}: inputs over
 * 64 KiB (checked before reading), nesting deeper than 16 (checked before descending), lengths past
 * the input, indefinite lengths, non-shortest heads, floats, simple values other than false/true/null,
 * tags other than 0 and 1, non-text or unsorted or duplicate map keys, invalid UTF-8, trailing bytes.
 * cbor-x's own decoder accepts all of these, so heads are read here; the result is re-encoded with
 * the canonical encoder and compared byte for byte as a last check.
 */
export function decodeCanonical(bytes: Uint8Array, maxBytes: number = MAX_CBOR_BYTES): CborValue {
  if (bytes.length > maxBytes) throw new CborError("too_large", `${bytes.length} bytes, over ${maxBytes}`);
  if (bytes.length === 0) throw new CborError("empty", "no bytes");
  const reader = new Reader(bytes);
  const value = reader.item(1);
  if (reader.offset !== bytes.length) {
    throw new CborError(
      "trailing_bytes",
      `${bytes.length - reader.offset} bytes after the item`,
      `@${reader.offset}`,
    );
  }
  const again = encodeCanonical(value);
  if (Buffer.compare(again, bytes) !== 0) throw new CborError("non_canonical", "not in deterministic form");
  return value;
}

class Reader {
  offset = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  item(depth: number): CborValue {
    const start = this.offset;
    const { major, info, arg } = this.head();
    switch (major) {
      case 0:
        return toInteger(arg);
      case 1:
        if (arg === MAX_UINT64)
          throw new CborError("out_of_range", "-2^64 is outside the profile", `@${start}`);
        return toInteger(-1n - arg);
      case 2:
        return new Uint8Array(this.take(arg, start));
      case 3:
        return this.text(arg, start);
      case 4:
      case 5:
      case 6:
        if (depth > MAX_CBOR_DEPTH)
          throw new CborError("too_deep", `nested deeper than ${MAX_CBOR_DEPTH}`, `@${start}`);
        if (major === 4) return this.array(arg, depth, start);
        if (major === 5) return this.map(arg, depth, start);
        return this.tag(arg, depth, start);
      default:
        return simple(info, start);
    }
  }

  private head(): Head {
    const at = this.offset;
    const initial = this.byte();
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (major === 7) {
      // Floats and simple values carry no length: judged by `simple`, except the float widths' bytes.
      if (info >= 25 && info <= 27)
        throw new CborError("float", "floating-point numbers are not allowed", `@${at}`);
      if (info === 24)
        throw new CborError("simple_value", "extended simple values are not allowed", `@${at}`);
      if (info === 31)
        throw new CborError("indefinite_length", "a break code outside an indefinite item", `@${at}`);
      return { major, info, arg: BigInt(info) };
    }
    if (info < 24) return { major, info, arg: BigInt(info) };
    if (info === 31) throw new CborError("indefinite_length", "indefinite lengths are not allowed", `@${at}`);
    if (info > 27) throw new CborError("reserved", `reserved additional information ${info}`, `@${at}`);
    const width = 1 << (info - 24);
    if (this.offset + width > this.bytes.length)
      throw new CborError("truncated", "the head runs past the input", `@${at}`);
    let arg: bigint;
    if (width === 1) arg = BigInt(this.view.getUint8(this.offset));
    else if (width === 2) arg = BigInt(this.view.getUint16(this.offset));
    else if (width === 4) arg = BigInt(this.view.getUint32(this.offset));
    else arg = this.view.getBigUint64(this.offset);
    this.offset += width;
    const floor = width === 1 ? 24n : 1n << BigInt(4 * width);
    if (arg < floor) throw new CborError("non_shortest", `${arg} is not in its shortest form`, `@${at}`);
    return { major, info, arg };
  }

  private byte(): number {
    if (this.offset >= this.bytes.length)
      throw new CborError("truncated", "the input ends inside an item", `@${this.offset}`);
    return this.bytes[this.offset++] as number;
  }

  private take(length: bigint, at: number): Uint8Array {
    if (length > BigInt(this.bytes.length - this.offset)) {
      throw new CborError("truncated", `a length of ${length} runs past the input`, `@${at}`);
    }
    const start = this.offset;
    this.offset += Number(length);
    return this.bytes.subarray(start, this.offset);
  }

  private text(length: bigint, at: number): string {
    try {
      return utf8.decode(this.take(length, at));
    } catch (error) {
      if (error instanceof CborError) throw error;
      throw new CborError("invalid_utf8", "a text string is not UTF-8", `@${at}`);
    }
  }

  private count(arg: bigint, at: number, bytesPerItem: number): number {
    // Every item takes at least one byte: a count the rest of the input cannot hold is a lie.
    if (arg * BigInt(bytesPerItem) > BigInt(this.bytes.length - this.offset)) {
      throw new CborError("truncated", `a count of ${arg} runs past the input`, `@${at}`);
    }
    return Number(arg);
  }

  private array(arg: bigint, depth: number, at: number): CborValue[] {
    const count = this.count(arg, at, 1);
    const items: CborValue[] = [];
    for (let index = 0; index < count; index++) items.push(this.item(depth + 1));
    return items;
  }

  private map(arg: bigint, depth: number, at: number): CborMap {
    const count = this.count(arg, at, 2);
    const map: CborMap = new Map();
    let previous: Uint8Array | undefined;
    for (let index = 0; index < count; index++) {
      const keyStart = this.offset;
      const { major, arg: length } = this.head();
      if (major !== 3) throw new CborError("key_type", "map keys must be text strings", `@${keyStart}`);
      const key = this.text(length, keyStart);
      const keyBytes = this.bytes.subarray(keyStart, this.offset);
      if (previous !== undefined) {
        const order = Buffer.compare(previous, keyBytes);
        if (order === 0)
          throw new CborError("duplicate_key", `key ${JSON.stringify(key)} appears twice`, `@${keyStart}`);
        if (order > 0)
          throw new CborError("unsorted_keys", `key ${JSON.stringify(key)} is out of order`, `@${keyStart}`);
      }
      previous = keyBytes;
      map.set(key, this.item(depth + 1));
    }
    return map;
  }

  private tag(arg: bigint, depth: number, at: number): CborTag {
    if (arg === 0n) {
      const value = this.item(depth + 1);
      if (typeof value !== "string" || !isDateTime(value)) {
        throw new CborError("tag", "tag 0 must hold a date-time such as 2026-01-31T12:00:00Z", `@${at}`);
      }
      return new CborTag(0, value);
    }
    if (arg === 1n) {
      const value = this.item(depth + 1);
      if (typeof value !== "number" || value < 0) {
        throw new CborError("tag", "tag 1 must hold an unsigned integer of seconds", `@${at}`);
      }
      return new CborTag(1, value);
    }
    throw new CborError("tag", `tag ${arg} is not used by this profile`, `@${at}`);
  }
}

function simple(info: number, at: number): CborValue {
  if (info === 20) return false;
  if (info === 21) return true;
  if (info === 22) return null;
  throw new CborError("simple_value", `simple value ${info} is not allowed`, `@${at}`);
}

function toInteger(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** Exactly the text `formatDateTime` writes for some instant: no 30 February, no leap second. */
function isDateTime(text: string): boolean {
  if (!DATE_TIME.test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text.replace("Z", ".000Z");
}
