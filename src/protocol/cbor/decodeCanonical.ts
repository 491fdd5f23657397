import { CborError } from "./CborError.js";
import {
  CborTag,
  MAX_BIGNUM_BYTES,
  MAX_CBOR_BYTES,
  MAX_CBOR_DEPTH,
  MAX_CBOR_ITEMS,
  type CborMap,
  type CborValue,
} from "./CborValue.js";
import { hexOfBytes } from "../../common/bytes.js";

/** RFC 3339 date-time as this profile writes it in tag 0: UTC, whole seconds, `Z`. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The top-level types a caller can insist on: refused at the first byte when the input is another. */
export type TopLevelType = "map" | "array";

export interface DecodeOptions {
  /** Largest input, in bytes, refused before reading (default {@link MAX_CBOR_BYTES}). */
  maxBytes?: number;
  /**
   * Most data items in the whole input: elements, keys, values, tag contents and the item itself, counted
   * from each head before reading what it announces (default {@link MAX_CBOR_ITEMS}).
   */
  maxItems?: number;
  /** The top-level type the caller expects (default: any). */
  expect?: TopLevelType;
  /** The message's name, the error's `at` when the top-level type is wrong (default `@0`). */
  what?: string;
}

// Fatal: invalid UTF-8 is refused. ignoreBOM: a leading U+FEFF is text like any other, never dropped.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const TWO_32 = 2 ** 32;
const SHORT_TEXT = 32;
const MAX_UINT64 = 2n ** 64n - 1n;
const MAJOR_OF: Record<TopLevelType, number> = { array: 4, map: 5 };
const MAJOR_NAME = [
  "an unsigned integer",
  "a negative integer",
  "a byte string",
  "a text string",
  "an array",
  "a map",
  "a tag",
  "a simple value",
];

/**
 * Decode one canonical CBOR item (RFC 8949 §4.2.1 as this profile narrows it), refusing anything
 * else with a {@link CborError} that names the rule and the byte offset. One pass, no re-encoding:
 * the reader itself refuses inputs over `maxBytes` (before reading), another top-level type than
 * `expect` (at the first byte), more than `maxItems` items (at the head that announces them), nesting
 * deeper than 16, lengths past the input, indefinite lengths, non-shortest heads, floats, simple values
 * other than false/true/null, tags other than 0, 1 and 2, bignums (tag 2) that are not preferred
 * serialization (a leading zero byte, a value that fits in 64 bits) or above 2^256 − 1, non-text or
 * unsorted or duplicate map keys,
 * invalid UTF-8, trailing bytes. What it accepts re-encodes to exactly the input (canonicalCbor.test.ts).
 * A number as second argument is `maxBytes` (the older signature).
 */
export function decodeCanonical(bytes: Uint8Array, options: DecodeOptions & { expect: "map" }): CborMap;
export function decodeCanonical(bytes: Uint8Array, options: DecodeOptions & { expect: "array" }): CborValue[];
export function decodeCanonical(bytes: Uint8Array, options?: number | DecodeOptions): CborValue;
export function decodeCanonical(bytes: Uint8Array, options: number | DecodeOptions = {}): CborValue {
  const {
    maxBytes = MAX_CBOR_BYTES,
    maxItems = MAX_CBOR_ITEMS,
    expect,
    what = "@0",
  } = typeof options === "number" ? { maxBytes: options } : options;
  if (bytes.length > maxBytes) throw new CborError("too_large", `${bytes.length} bytes, over ${maxBytes}`);
  if (bytes.length === 0) throw new CborError("empty", "no bytes");
  const major = (bytes[0] as number) >> 5;
  if (expect !== undefined && major !== MAJOR_OF[expect]) {
    throw new CborError(
      "wrong_type",
      `expected ${MAJOR_NAME[MAJOR_OF[expect]]}, found ${MAJOR_NAME[major]}`,
      what,
    );
  }
  const reader = new Reader(bytes, maxItems);
  const value = reader.item(1);
  if (reader.offset !== bytes.length) {
    throw new CborError(
      "trailing_bytes",
      `${bytes.length - reader.offset} bytes after the item`,
      `@${reader.offset}`,
    );
  }
  return value;
}

class Reader {
  offset = 0;
  /** Items announced so far, the top-level one included. */
  private items = 1;
  /** The head just read: its major type, additional information and argument. */
  private major = 0;
  private info = 0;
  /** The argument as a number; a 64-bit argument above 2^53 sets `big` instead (and `arg` to Infinity). */
  private arg = 0;
  private big: bigint | undefined;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly maxItems: number,
  ) {}

  item(depth: number): CborValue {
    const start = this.offset;
    this.head();
    switch (this.major) {
      case 0:
        return this.big ?? this.arg;
      case 1:
        // -1 - n is safe up to n = 2^53 - 2; below that the profile returns bigints, as for large n.
        if (this.arg < Number.MAX_SAFE_INTEGER) return -1 - this.arg;
        if (this.big === MAX_UINT64)
          throw new CborError("out_of_range", "-2^64 is outside the profile", `@${start}`);
        return -1n - (this.big ?? BigInt(this.arg));
      case 2:
        return new Uint8Array(this.bytes.subarray(this.offset, this.skip(start)));
      case 3:
        return this.text(start);
      case 4:
      case 5:
      case 6:
        if (depth > MAX_CBOR_DEPTH)
          throw new CborError("too_deep", `nested deeper than ${MAX_CBOR_DEPTH}`, `@${start}`);
        if (this.major === 4) return this.array(depth, start);
        if (this.major === 5) return this.map(depth, start);
        return this.tag(depth, start);
      default:
        return simple(this.info, start);
    }
  }

  /** Read one head into `major`, `info`, `arg`/`big`, refusing what no canonical head is. */
  private head(): void {
    const at = this.offset;
    if (at >= this.bytes.length) throw new CborError("truncated", "the input ends inside an item", `@${at}`);
    const initial = this.bytes[at] as number;
    this.offset = at + 1;
    const major = initial >> 5;
    const info = initial & 0x1f;
    this.major = major;
    this.info = info;
    this.big = undefined;
    if (major === 7) {
      // Floats and simple values carry no length: judged by `simple`, except the float widths' bytes.
      if (info >= 25 && info <= 27)
        throw new CborError("float", "floating-point numbers are not allowed", `@${at}`);
      if (info === 24)
        throw new CborError("simple_value", "extended simple values are not allowed", `@${at}`);
      if (info === 31)
        throw new CborError("indefinite_length", "a break code outside an indefinite item", `@${at}`);
      this.arg = info;
      return;
    }
    if (info < 24) {
      this.arg = info;
      return;
    }
    if (info === 31) throw new CborError("indefinite_length", "indefinite lengths are not allowed", `@${at}`);
    if (info > 27) throw new CborError("reserved", `reserved additional information ${info}`, `@${at}`);
    const width = 1 << (info - 24);
    if (this.offset + width > this.bytes.length)
      throw new CborError("truncated", "the head runs past the input", `@${at}`);
    const b = this.bytes;
    const o = this.offset;
    let arg: number;
    if (width === 1) arg = b[o] as number;
    else if (width === 2) arg = ((b[o] as number) << 8) | (b[o + 1] as number);
    else if (width === 4) arg = uint32(b, o);
    else arg = uint32(b, o) * TWO_32 + uint32(b, o + 4);
    this.offset = o + width;
    // Each width starts where the one below ends: 24, 2^8, 2^16, 2^32.
    const floor = width === 1 ? 24 : 2 ** (4 * width);
    if (arg < floor) throw new CborError("non_shortest", `${arg} is not in its shortest form`, `@${at}`);
    if (arg > Number.MAX_SAFE_INTEGER) {
      this.big = (BigInt(uint32(b, o)) << 32n) | BigInt(uint32(b, o + 4));
      this.arg = Number.POSITIVE_INFINITY;
    } else this.arg = arg;
  }

  /** Step over a string of `arg` bytes; returns where it ends. */
  private skip(at: number): number {
    if (this.arg > this.bytes.length - this.offset) {
      throw new CborError("truncated", `a length of ${this.big ?? this.arg} runs past the input`, `@${at}`);
    }
    this.offset += this.arg;
    return this.offset;
  }

  private text(at: number): string {
    const start = this.offset;
    const end = this.skip(at);
    // Map keys and most values are short ASCII: TextDecoder's per-call cost dwarfs reading them here.
    const quick = end - start <= SHORT_TEXT ? ascii(this.bytes, start, end) : undefined;
    if (quick !== undefined) return quick;
    try {
      return utf8.decode(this.bytes.subarray(start, end));
    } catch {
      throw new CborError("invalid_utf8", "a text string is not UTF-8", `@${at}`);
    }
  }

  /** The count in the head just read, once the input can hold it and the item bound allows it. */
  private count(at: number, itemsPerEntry: number): number {
    const count = this.arg;
    // Every item takes at least one byte: a count the rest of the input cannot hold is a lie.
    if (count * itemsPerEntry > this.bytes.length - this.offset) {
      throw new CborError("truncated", `a count of ${this.big ?? count} runs past the input`, `@${at}`);
    }
    this.announce(count * itemsPerEntry, at);
    return count;
  }

  private announce(items: number, at: number): void {
    this.items += items;
    if (this.items > this.maxItems) {
      throw new CborError("too_many_items", `more than ${this.maxItems} items in one message`, `@${at}`);
    }
  }

  private array(depth: number, at: number): CborValue[] {
    const count = this.count(at, 1);
    const items = new Array<CborValue>(count);
    for (let index = 0; index < count; index++) items[index] = this.item(depth + 1);
    return items;
  }

  private map(depth: number, at: number): CborMap {
    const count = this.count(at, 2);
    const map: CborMap = new Map();
    let previousStart = -1;
    let previousEnd = -1;
    for (let index = 0; index < count; index++) {
      const keyStart = this.offset;
      this.head();
      if (this.major !== 3) throw new CborError("key_type", "map keys must be text strings", `@${keyStart}`);
      const key = this.text(keyStart);
      if (previousStart >= 0) {
        const order = compareBytes(this.bytes, previousStart, previousEnd, keyStart, this.offset);
        if (order === 0)
          throw new CborError("duplicate_key", `key ${JSON.stringify(key)} appears twice`, `@${keyStart}`);
        if (order > 0)
          throw new CborError("unsorted_keys", `key ${JSON.stringify(key)} is out of order`, `@${keyStart}`);
      }
      previousStart = keyStart;
      previousEnd = this.offset;
      map.set(key, this.item(depth + 1));
    }
    return map;
  }

  private tag(depth: number, at: number): CborTag | bigint {
    const number = this.big ?? this.arg;
    if (number === 3)
      throw new CborError("tag", "tag 3 (a negative bignum) is not used by this profile", `@${at}`);
    if (number !== 0 && number !== 1 && number !== 2)
      throw new CborError("tag", `tag ${number} is not used by this profile`, `@${at}`);
    this.announce(1, at);
    const value = this.item(depth + 1);
    if (number === 2) return bignum(value, at);
    if (number === 0) {
      if (typeof value !== "string" || !isDateTime(value)) {
        throw new CborError("tag", "tag 0 must hold a date-time such as 2026-01-31T12:00:00Z", `@${at}`);
      }
      return new CborTag(0, value);
    }
    if (typeof value !== "number" || value < 0) {
      throw new CborError("tag", "tag 1 must hold an unsigned integer of seconds", `@${at}`);
    }
    return new CborTag(1, value);
  }
}

/**
 * The unsigned integer a tag 2 holds, in preferred serialization only: big-endian bytes, no leading zero,
 * more than 8 of them (a value that fits in 64 bits is a plain unsigned integer), at most 32.
 */
function bignum(value: CborValue, at: number): bigint {
  if (!(value instanceof Uint8Array))
    throw new CborError("tag", "tag 2 must hold a byte string (a bignum)", `@${at}`);
  if (value.length > 0 && value[0] === 0)
    throw new CborError("non_shortest", "a bignum with a leading zero byte", `@${at}`);
  if (value.length <= 8)
    throw new CborError(
      "non_shortest",
      "a bignum that fits in 64 bits (write it as an unsigned integer)",
      `@${at}`,
    );
  if (value.length > MAX_BIGNUM_BYTES)
    throw new CborError("out_of_range", "a bignum above 2^256 - 1", `@${at}`);
  return BigInt(`0x${hexOfBytes(value)}`);
}

/** `bytes[start..end)` as text when every byte is ASCII (valid UTF-8 as it is), else undefined. */
function ascii(bytes: Uint8Array, start: number, end: number): string | undefined {
  let text = "";
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x80) return undefined;
    text += String.fromCharCode(byte);
  }
  return text;
}

function uint32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) * 0x1000000 +
    (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))
  );
}

/** Bytewise order of `bytes[a..aEnd)` and `bytes[b..bEnd)`: the canonical order of encoded keys. */
function compareBytes(bytes: Uint8Array, a: number, aEnd: number, b: number, bEnd: number): number {
  const length = Math.min(aEnd - a, bEnd - b);
  for (let i = 0; i < length; i++) {
    const difference = (bytes[a + i] as number) - (bytes[b + i] as number);
    if (difference !== 0) return difference;
  }
  return aEnd - a - (bEnd - b);
}

function simple(info: number, at: number): CborValue {
  if (info === 20) return false;
  if (info === 21) return true;
  if (info === 22) return null;
  throw new CborError("simple_value", `simple value ${info} is not allowed`, `@${at}`);
}

/** Exactly the text `formatDateTime` writes for some instant: no 30 February, no leap second. */
function isDateTime(text: string): boolean {
  if (!DATE_TIME.test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text.replace("Z", ".000Z");
}
