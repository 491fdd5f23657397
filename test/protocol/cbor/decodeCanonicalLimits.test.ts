import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { decodeClaim } from "../../../src/protocol/cbor/Claim.js";
import {
  CborTag,
  MAX_CBOR_BYTES,
  MAX_CBOR_ITEMS,
  MAX_CBOR_RECORD_ITEMS,
  type CborValue,
} from "../../../src/protocol/cbor/CborValue.js";
import { decodeCanonical, type DecodeOptions } from "../../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import {
  decodePaymentSignature,
  encodePaymentSignature,
} from "../../../src/protocol/cbor/PaymentSignature.js";
import {
  aggregateDigest,
  decodeReceiptAggregate,
  encodeReceiptAggregate,
} from "../../../src/protocol/cbor/ReceiptAggregate.js";
import { decodeSignedClaim } from "../../../src/protocol/cbor/SignedClaim.js";
import { decodeCborHeader, worstCaseHeaders } from "../../../bench/cborWorstCase.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "hex"));

/** The shortest head of `major` with argument `n` (n < 2^32), in hex. */
function head(major: number, n: number): string {
  const m = major << 5;
  const width = n < 24 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : 4;
  const info = width === 0 ? n : 23 + Math.log2(width) + 1;
  return (
    (m | info).toString(16).padStart(2, "0") + (width === 0 ? "" : n.toString(16).padStart(2 * width, "0"))
  );
}
const array = (count: number, item: string): string => head(4, count) + item.repeat(count);
const KEY = "70" + Buffer.from("delegation_chain").toString("hex"); // 17 bytes: a value starts at offset 18
const EMPTY_MAPS_49K = array(49 * 1024, "a0");
/** `count` distinct two-character ASCII keys to null, in canonical order. */
const keys = (count: number): string =>
  head(5, count) +
  Array.from(
    { length: count },
    (_, i) => "62" + [i >> 7, i & 0x7f].map((b) => b.toString(16).padStart(2, "0")).join("") + "f6",
  ).join("");

// Each input, the options it is read with, and the rule and place it must be refused at.
const HOSTILE: Array<[string, string, DecodeOptions, CborError["problem"], string]> = [
  // The attack: a 49 KB array of empty maps, refused at its first byte or its head.
  ["49 KB array of empty maps, a map expected", EMPTY_MAPS_49K, { expect: "map" }, "wrong_type", "@0"],
  [
    "49 KB array of empty maps, named message",
    EMPTY_MAPS_49K,
    { expect: "map", what: "PaymentSignature" },
    "wrong_type",
    "PaymentSignature",
  ],
  ["49 KB array of empty maps, any type", EMPTY_MAPS_49K, {}, "too_many_items", "@0"],
  [
    "49 KB array of empty maps under a key",
    "a1" + KEY + EMPTY_MAPS_49K,
    { expect: "map" },
    "too_many_items",
    "@18",
  ],
  // The item bound: every item counts, keys and tag contents included, across nesting.
  [
    `${MAX_CBOR_ITEMS} empty maps (one over with the array)`,
    array(MAX_CBOR_ITEMS, "a0"),
    {},
    "too_many_items",
    "@0",
  ],
  ["10,000 tiny integers", array(10_000, "00"), {}, "too_many_items", "@0"],
  ["10,000 empty byte strings", array(10_000, "40"), {}, "too_many_items", "@0"],
  [
    `${MAX_CBOR_ITEMS / 2} keys (one over with the map)`,
    keys(MAX_CBOR_ITEMS / 2),
    {},
    "too_many_items",
    "@0",
  ],
  [
    "two halves that only together exceed",
    "82" + array(2047, "00") + array(2047, "00"),
    {},
    "too_many_items",
    "@2051",
  ],
  ["a tag's content counts", "82c10100", { maxItems: 3 }, "too_many_items", "@1"],
  ["65 items in a record", array(64, "00"), { maxItems: MAX_CBOR_RECORD_ITEMS }, "too_many_items", "@0"],
  // Nesting: refused at the 17th level's head, however deep the input goes (no stack overflow).
  ["17 nested arrays", "81".repeat(16) + "80", {}, "too_deep", "@16"],
  ["60,000 nested arrays", "81".repeat(60_000) + "80", {}, "too_deep", "@16"],
  ["17 nested maps", "a1616181".repeat(8) + "a0", {}, "too_deep", "@32"],
  ["17 nested tags", "c1".repeat(17) + "00", {}, "too_deep", "@16"],
  // Huge counts and lengths in heads over short bodies: refused at the head, nothing allocated.
  ["2^64-1 items in 9 bytes", "9bffffffffffffffff", {}, "truncated", "@0"],
  ["2^32-1 map entries over one byte", "baffffffffa0", {}, "truncated", "@0"],
  ["2^53+1 items", "9b0020000000000001", {}, "truncated", "@0"],
  ["2^64-1 bytes", "5bffffffffffffffff", {}, "truncated", "@0"],
  ["2^31 text bytes over one", "7a8000000061", {}, "truncated", "@0"],
  ["a count past a nested input", "a1" + KEY + "9a0001000000", {}, "truncated", "@18"],
  ["a map's count as if its values were free", "a4616100616200", {}, "truncated", "@0"],
  // Indefinite lengths, anywhere.
  ["indefinite array under a key", "a16161" + "9fff", {}, "indefinite_length", "@3"],
  ["indefinite map, a map expected", "bfff", { expect: "map" }, "indefinite_length", "@0"],
  ["indefinite bytes in an array", "825f4101ff", {}, "indefinite_length", "@1"],
  ["a break in an array", "82ff00", {}, "indefinite_length", "@1"],
  // Non-shortest heads, each width.
  ["1-byte argument under 24, nested", "82001817", {}, "non_shortest", "@2"],
  ["2-byte argument under 256", "1900ff", {}, "non_shortest", "@0"],
  ["4-byte argument under 65536", "1a0000ffff", {}, "non_shortest", "@0"],
  ["8-byte argument under 2^32", "1b00000000ffffffff", {}, "non_shortest", "@0"],
  ["a key's length not shortest", "a1780161" + "01", {}, "non_shortest", "@1"],
  ["a count not shortest", "990001" + "00", {}, "non_shortest", "@0"],
  // Keys: sorted by encoded bytes, no duplicates, text only.
  ["duplicate key", "a2616101616102", {}, "duplicate_key", "@4"],
  ["unsorted keys", "a2616201616102", {}, "unsorted_keys", "@4"],
  ["longer key first", "a262616101616202", {}, "unsorted_keys", "@5"],
  ["a byte-string key", "a1416101", {}, "key_type", "@1"],
  ["a map as a key", "a1a001", {}, "key_type", "@1"],
  ["an integer key after a good one", "a261610100f6", {}, "key_type", "@4"],
  // Tags: only 0 (a date-time), 1 (unsigned seconds) and 2 (a bignum past 64 bits, preferred form).
  ["bignum (tag 2) of 2^64-1", "c248ffffffffffffffff", {}, "non_shortest", "@0"],
  ["bignum (tag 2) with a leading zero", "c24a00010000000000000000", {}, "non_shortest", "@0"],
  ["bignum (tag 2) past 2^256-1", "c2582101" + "00".repeat(32), {}, "out_of_range", "@0"],
  ["negative bignum (tag 3)", "c349010000000000000000", {}, "tag", "@0"],
  ["self-described CBOR (tag 55799)", "d9d9f7a0", {}, "tag", "@0"],
  ["tag 2^64-1", "dbffffffffffffffff00", {}, "tag", "@0"],
  ["tag 1 over tag 1", "c1c100", {}, "tag", "@0"],
  ["tag 1 over a negative", "c120", {}, "tag", "@0"],
  ["tag 1 over 2^53", "c11b0020000000000000", {}, "tag", "@0"],
  [
    "tag 0 with fractions of a second",
    "c0" + head(3, 22) + Buffer.from("2026-01-31T12:00:00.5Z").toString("hex"),
    {},
    "tag",
    "@0",
  ],
  [
    "tag 0 with an offset",
    "c0" + head(3, 25) + Buffer.from("2026-01-31T12:00:00+01:00").toString("hex"),
    {},
    "tag",
    "@0",
  ],
  // Floats and simple values.
  ["half-float zero in an array", "82f5f90000", {}, "float", "@2"],
  ["undefined in an array", "82f5f7", {}, "simple_value", "@2"],
  ["simple value 255", "f8ff", {}, "simple_value", "@0"],
  ["simple value 0", "e0", {}, "simple_value", "@0"],
  ["reserved 28 in major 7", "fc", {}, "simple_value", "@0"],
  // Text: strict UTF-8, short and long.
  ["overlong slash", "62c0af", {}, "invalid_utf8", "@0"],
  ["encoded surrogate", "63eda080", {}, "invalid_utf8", "@0"],
  ["a bad byte after 40 good ones", head(3, 41) + "61".repeat(40) + "ff", {}, "invalid_utf8", "@0"],
  ["invalid UTF-8 in a key", "a162c32801", {}, "invalid_utf8", "@1"],
  // Trailing bytes and sizes.
  ["a byte after the map", "a000", {}, "trailing_bytes", "@1"],
  ["49 KB after an empty map", "a0" + "00".repeat(49 * 1024), {}, "trailing_bytes", "@1"],
  ["over the byte cap, before the type", "80".repeat(MAX_CBOR_BYTES + 1), { expect: "map" }, "too_large", ""],
  ["over a caller's byte cap", "4a" + "00".repeat(10), { maxBytes: 10 }, "too_large", ""],
  ["-2^64", "3bffffffffffffffff", {}, "out_of_range", "@0"],
  // The top-level type, at the first byte.
  ["an array where a map is expected", "80", { expect: "map" }, "wrong_type", "@0"],
  ["a map where an array is expected", "a0", { expect: "array" }, "wrong_type", "@0"],
  ["a float where a map is expected", "f93c00", { expect: "map" }, "wrong_type", "@0"],
  ["a lone break where an array is expected", "ff", { expect: "array" }, "wrong_type", "@0"],
  ["a tag where a map is expected", "c0a0", { expect: "map" }, "wrong_type", "@0"],
];

describe("decodeCanonical: hostile corpus with rule and place", () => {
  it.each(HOSTILE)("refuses %s", (_name, input, options, problem, at) => {
    let caught: unknown;
    try {
      decodeCanonical(fromHex(input), options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CborError);
    const error = caught as CborError;
    expect({ problem: error.problem, at: error.at ?? "" }).toEqual({ problem, at });
    expect(error.code).toBe(`cbor_${problem}`);
    // The message says where, then which rule.
    expect(error.message.startsWith(at === "" ? "" : `${at}: `)).toBe(true);
  });

  it("names the count it refuses: a huge one exactly, past 2^53", () => {
    expect(() => decodeCanonical(fromHex("9b0020000000000001"))).toThrow(
      "a count of 9007199254740993 runs past the input",
    );
    expect(() => decodeCanonical(fromHex(array(MAX_CBOR_ITEMS, "a0")))).toThrow(
      `more than ${MAX_CBOR_ITEMS} items in one message`,
    );
    expect(() => decodeCanonical(fromHex("80"), { expect: "map", what: "PaymentSignature" })).toThrow(
      "PaymentSignature: expected a map, found an array",
    );
  });

  it("keeps the older signature: a number is the byte cap", () => {
    expect(() => decodeCanonical(fromHex("4a" + "00".repeat(10)), 10)).toThrow(
      expect.objectContaining({ problem: "too_large" }),
    );
    expect(decodeCanonical(fromHex("4a" + "00".repeat(10)), 11)).toEqual(new Uint8Array(10));
  });
});

// Inputs at the edges of the limits and of the integer types, and what each decodes to.
const ACCEPTED: Array<[string, string, DecodeOptions, CborValue]> = [
  [
    `${MAX_CBOR_ITEMS - 1} empty maps (the bound with the array)`,
    array(MAX_CBOR_ITEMS - 1, "a0"),
    {},
    Array.from({ length: MAX_CBOR_ITEMS - 1 }, () => new Map()),
  ],
  [
    `${MAX_CBOR_ITEMS / 2 - 1} keys`,
    keys(MAX_CBOR_ITEMS / 2 - 1),
    {},
    new Map(
      Array.from({ length: MAX_CBOR_ITEMS / 2 - 1 }, (_, i) => [String.fromCharCode(i >> 7, i & 0x7f), null]),
    ),
  ],
  ["a tag and its content at the bound", "c101", { maxItems: 2 }, new CborTag(1, 1)],
  ["16 nested arrays", "81".repeat(15) + "80", {}, JSON.parse("[".repeat(16) + "]".repeat(16)) as CborValue],
  ["2^53-1", "1b001fffffffffffff", {}, Number.MAX_SAFE_INTEGER],
  ["2^53 (a bigint)", "1b0020000000000000", {}, 2n ** 53n],
  ["-(2^53-1)", "3b001ffffffffffffe", {}, Number.MIN_SAFE_INTEGER],
  ["-2^53 (a bigint)", "3b001fffffffffffff", {}, -(2n ** 53n)],
  ["2^32", "1b0000000100000000", {}, 2 ** 32],
  ["-2^64+1", "3bfffffffffffffffe", {}, -(2n ** 64n) + 1n],
  ["a text that starts with U+FEFF keeps it", "64efbbbf61", {}, "\ufeffa"],
  [
    "keys a and U+FEFF a are two keys",
    "a2616101" + "64efbbbf6102",
    {},
    new Map<string, CborValue>([
      ["a", 1],
      ["\ufeffa", 2],
    ]),
  ],
  ["a long non-ASCII text", head(3, 60) + "c3bc".repeat(30), {}, "\u00fc".repeat(30)],
  ["ASCII text past the short path", head(3, 40) + "61".repeat(40), {}, "a".repeat(40)],
  ["a map where a map is expected", "a16161f6", { expect: "map" }, new Map([["a", null]])],
  ["an array where an array is expected", "8100", { expect: "array" }, [0]],
];

describe("decodeCanonical: accepted at the edges", () => {
  it.each(ACCEPTED)("decodes %s, and it re-encodes to the same bytes", (_name, input, options, value) => {
    const decoded = decodeCanonical(fromHex(input), options);
    expect(decoded).toEqual(value);
    expect(hex(encodeCanonical(decoded))).toBe(input);
  });

  it("byte strings are plain Uint8Arrays, copied out of a Buffer input", () => {
    const input = Buffer.from("420102", "hex");
    const decoded = decodeCanonical(input) as Uint8Array;
    expect(Object.getPrototypeOf(decoded)).toBe(Uint8Array.prototype);
    input[1] = 9;
    expect([...decoded]).toEqual([1, 2]);
  });
});

describe("the profile's messages fit the limits with margin", () => {
  it("a PaymentSignature with a 16-grant chain and a humanity claim holds 27 items, under the record bound", () => {
    const payment = {
      paymentIntent: new Uint8Array(100),
      starkProof: new Uint8Array(32),
      signature: new Uint8Array(3309),
      humanityClaim: new Uint8Array(200),
      delegationChain: Array.from({ length: 16 }, () => new Uint8Array(100)),
    };
    expect(countItems(decodeCanonical(encodePaymentSignature(payment)))).toBe(27);
    expect(decodePaymentSignature(encodePaymentSignature(payment))).toEqual(payment);
    expect(27 * 2).toBeLessThan(MAX_CBOR_RECORD_ITEMS);
  });

  it("a 64 KiB receipt aggregate, the densest message, holds under half the item bound", () => {
    const members = Array.from({ length: 1_900 }, (_, i) => {
      const digest = new Uint8Array(32);
      digest[0] = i >> 8;
      digest[1] = i & 0xff;
      return digest;
    });
    const encoded = encodeReceiptAggregate({ members, totals: [], digest: aggregateDigest(members, []) });
    expect(encoded.length).toBeLessThanOrEqual(MAX_CBOR_BYTES);
    expect(encoded.length).toBeGreaterThan(MAX_CBOR_BYTES - 34 * 30);
    expect(countItems(decodeCanonical(encoded)) * 2).toBeLessThan(MAX_CBOR_ITEMS);
    expect(decodeReceiptAggregate(encoded).members).toHaveLength(1_900);
  });

  it("the bench's worst-case headers: the legitimate ones decode, each attack is refused by its rule", () => {
    const cases = worstCaseHeaders();
    expect(cases.filter((c) => c.expected === "accepted")).toHaveLength(2);
    for (const c of cases)
      expect(decodeCborHeader(c.header), c.name).toMatch(new RegExp(`^${c.expected}( |$)`));
  });

  it("records refuse another top-level type at once, naming the message", () => {
    const attack = fromHex(EMPTY_MAPS_49K);
    expect(() => decodePaymentSignature(attack)).toThrow(
      expect.objectContaining({ problem: "wrong_type", at: "PaymentSignature" }),
    );
    expect(() => decodeSignedClaim(attack, "delegation_chain[0]")).toThrow(
      expect.objectContaining({ problem: "wrong_type", at: "delegation_chain[0]" }),
    );
    expect(() => decodeClaim(fromHex("a0"))).toThrow(
      expect.objectContaining({ problem: "wrong_type", at: "claim" }),
    );
    expect(() => decodeClaim(fromHex(array(MAX_CBOR_RECORD_ITEMS, "a0")))).toThrow(
      expect.objectContaining({ problem: "too_many_items", at: "@0" }),
    );
  });
});

/** Every data item of `value`: itself, its elements, each key and each value, a tag's content. */
function countItems(value: CborValue): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countItems(item), 1);
  if (value instanceof Map) {
    let sum = 1;
    for (const item of value.values()) sum += 1 + countItems(item);
    return sum;
  }
  if (value instanceof CborTag) return 1 + countItems(value.value);
  return 1;
}

const topType = (value: CborValue): "map" | "array" | undefined =>
  value instanceof Map ? "map" : Array.isArray(value) ? "array" : undefined;

const safeDate = fc
  .integer({ min: 0, max: 253402300799 })
  .map((seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z"));

const cborValue: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc
      .bigInt({ min: -(2n ** 64n) + 1n, max: 2n ** 64n - 1n })
      .map((n) =>
        n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n,
      ),
    fc.string({ unit: "grapheme", maxLength: 50 }),
    fc.uint8Array({ maxLength: 20 }),
    fc.constantFrom(true, false, null),
    safeDate.map((text) => new CborTag(0, text)),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((seconds) => new CborTag(1, seconds)),
    fc.array(tie("value"), { maxLength: 6 }),
    fc
      .dictionary(fc.string({ unit: "grapheme", maxLength: 8 }), tie("value"), { maxKeys: 6 })
      .map((record) => new Map(Object.entries(record))),
  ),
})).value;

const options: fc.Arbitrary<DecodeOptions> = fc.record(
  {
    expect: fc.constantFrom("map" as const, "array" as const),
    maxItems: fc.integer({ min: 1, max: 80 }),
    what: fc.constantFrom("PaymentSignature", "claim"),
  },
  { requiredKeys: [] },
);

describe("decodeCanonical: properties of the limits", () => {
  it("a value decodes with exactly its item count as the bound, and is refused at one less", () => {
    fc.assert(
      fc.property(cborValue, (value) => {
        const encoded = encodeCanonical(value);
        const items = countItems(value);
        expect(decodeCanonical(encoded, { maxItems: items })).toEqual(value);
        if (items > 1) {
          expect(() => decodeCanonical(encoded, { maxItems: items - 1 })).toThrow(
            expect.objectContaining({ problem: "too_many_items" }),
          );
        }
      }),
      { numRuns: 400 },
    );
  });

  it("a value decodes when its own top-level type is expected, and is refused at @0 otherwise", () => {
    fc.assert(
      fc.property(cborValue, fc.constantFrom("map" as const, "array" as const), (value, expected) => {
        const encoded = encodeCanonical(value);
        if (topType(value) === expected)
          expect(decodeCanonical(encoded, { expect: expected })).toEqual(value);
        else
          expect(() => decodeCanonical(encoded, { expect: expected })).toThrow(
            expect.objectContaining({ problem: "wrong_type", at: "@0" }),
          );
      }),
      { numRuns: 400 },
    );
  });

  it("random and mutated bytes under any options: only CborError, at a place inside the input; what decodes obeys the options and re-encodes to the input", () => {
    const mutated = fc.tuple(cborValue, fc.nat(), fc.nat({ max: 255 })).map(([value, position, byte]) => {
      const encoded = encodeCanonical(value);
      const copy = new Uint8Array(encoded);
      copy[position % copy.length] = byte;
      return copy;
    });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 80 }), mutated), options, (input, opts) => {
        let decoded: CborValue;
        try {
          decoded = decodeCanonical(input, opts);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
          const at = (error as CborError).at;
          if (at?.startsWith("@")) expect(Number(at.slice(1))).toBeLessThanOrEqual(input.length);
          else expect([undefined, opts.what]).toContain(at);
          return;
        }
        expect(hex(encodeCanonical(decoded))).toBe(hex(input));
        if (opts.expect !== undefined) expect(topType(decoded)).toBe(opts.expect);
        expect(countItems(decoded)).toBeLessThanOrEqual(opts.maxItems ?? MAX_CBOR_ITEMS);
      }),
      { numRuns: 3000 },
    );
  });
});
