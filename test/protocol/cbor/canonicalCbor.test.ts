import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { CborTag, type CborValue } from "../../../src/protocol/cbor/CborValue.js";
import { decodeCanonical } from "../../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "hex"));
const map = (entries: Array<[string, CborValue]>): Map<string, CborValue> => new Map(entries);

// RFC 8949 Appendix A, plus every integer length boundary, key order and nesting.
const VECTORS: Array<[string, CborValue, string]> = [
  ["0", 0, "00"],
  ["1", 1, "01"],
  ["23 (last one-byte)", 23, "17"],
  ["24 (first 1-byte argument)", 24, "1818"],
  ["100", 100, "1864"],
  ["255", 255, "18ff"],
  ["256", 256, "190100"],
  ["1000", 1000, "1903e8"],
  ["65535", 65535, "19ffff"],
  ["65536", 65536, "1a00010000"],
  ["1000000", 1000000, "1a000f4240"],
  ["2^32-1", 2 ** 32 - 1, "1affffffff"],
  ["2^32", 2 ** 32, "1b0000000100000000"],
  ["1000000000000", 1000000000000, "1b000000e8d4a51000"],
  ["2^53-1", Number.MAX_SAFE_INTEGER, "1b001fffffffffffff"],
  ["2^64-1", 2n ** 64n - 1n, "1bffffffffffffffff"],
  ["2^64 (the first bignum)", 2n ** 64n, "c249010000000000000000"],
  ["20 STRK (20 * 10^18)", 20n * 10n ** 18n, "c24901158e460913d00000"],
  ["2^128", 2n ** 128n, "c25101" + "00".repeat(16)],
  ["2^256-1 (the largest)", 2n ** 256n - 1n, "c25820" + "ff".repeat(32)],
  ["a bignum in a map", map([["amount", 2n ** 72n]]), "a166616d6f756e74c24a01" + "00".repeat(9)],
  ["-1", -1, "20"],
  ["-10", -10, "29"],
  ["-24", -24, "37"],
  ["-25", -25, "3818"],
  ["-100", -100, "3863"],
  ["-1000", -1000, "3903e7"],
  ["-2^32", -(2 ** 32), "3affffffff"],
  ["-2^32-1", -(2 ** 32) - 1, "3b0000000100000000"],
  ["-2^64+1", -(2n ** 64n) + 1n, "3bfffffffffffffffe"],
  ["false", false, "f4"],
  ["true", true, "f5"],
  ["null", null, "f6"],
  ["empty bytes", new Uint8Array(), "40"],
  ["h'01020304'", bytes("01020304"), "4401020304"],
  ["24 bytes", new Uint8Array(24), "5818" + "00".repeat(24)],
  ["256 bytes", new Uint8Array(256), "590100" + "00".repeat(256)],
  ["empty text", "", "60"],
  ["a", "a", "6161"],
  ["IETF", "IETF", "6449455446"],
  ['"\\', '"\\', "62225c"],
  ["ü", "\u00fc", "62c3bc"],
  ["水", "\u6c34", "63e6b0b4"],
  ["23-char text", "x".repeat(23), "77" + "78".repeat(23)],
  ["24-char text", "x".repeat(24), "7818" + "78".repeat(24)],
  ["255-char text", "x".repeat(255), "78ff" + "78".repeat(255)],
  ["256-char text", "x".repeat(256), "790100" + "78".repeat(256)],
  ["[]", [], "80"],
  ["[1,2,3]", [1, 2, 3], "83010203"],
  ["[1,[2,3],[4,5]]", [1, [2, 3], [4, 5]], "8301820203820405"],
  [
    "25 items",
    Array.from({ length: 25 }, (_, i) => i + 1),
    "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
  ],
  ["{}", map([]), "a0"],
  [
    '{"a":1,"b":[2,3]}',
    map([
      ["a", 1],
      ["b", [2, 3]],
    ]),
    "a26161016162820203",
  ],
  ['["a",{"b":"c"}]', ["a", map([["b", "c"]])], "826161a161626163"],
  [
    "five keys",
    map([
      ["e", "E"],
      ["d", "D"],
      ["c", "C"],
      ["b", "B"],
      ["a", "A"],
    ]),
    "a56161614161626142616361436164614461656145",
  ],
  [
    "keys sorted by encoded bytes: shorter first",
    map([
      ["aa", 3],
      ["b", 2],
      ["a", 1],
    ]),
    "a3616101616202626161" + "03",
  ],
  [
    "nested maps",
    map([
      [
        "outer",
        map([
          ["z", map([["y", true]])],
          ["a", null],
        ]),
      ],
    ]),
    "a1656f75746572a26161f6617aa16179f5",
  ],
  ["tag 0 date-time", new CborTag(0, "2013-03-21T20:04:00Z"), "c074323031332d30332d32315432303a30343a30305a"],
  ["tag 1 epoch", new CborTag(1, 1363896240), "c11a514b67b0"],
];

describe("canonical CBOR: RFC 8949 vectors", () => {
  it.each(VECTORS)(
    "%s encodes to its shortest deterministic bytes and decodes back",
    (_name, value, expected) => {
      expect(hex(encodeCanonical(value))).toBe(expected);
      expect(decodeCanonical(bytes(expected))).toEqual(value);
    },
  );
});

// Each input, and the problem it must be refused with.
const HOSTILE: Array<[string, string, CborError["problem"]]> = [
  ["23 in a 1-byte argument", "1817", "non_shortest"],
  ["0 in a 1-byte argument", "1800", "non_shortest"],
  ["255 in 2 bytes", "1900ff", "non_shortest"],
  ["65535 in 4 bytes", "1a0000ffff", "non_shortest"],
  ["2^32-1 in 8 bytes", "1b00000000ffffffff", "non_shortest"],
  ["-1 in a 1-byte argument", "3800", "non_shortest"],
  ["text length not shortest", "78016161", "non_shortest"],
  ["bytes length not shortest", "580100", "non_shortest"],
  ["array count not shortest", "980101", "non_shortest"],
  ["map count not shortest", "b801616101", "non_shortest"],
  ["tag number not shortest", "d800" + "74323031332d30332d32315432303a30343a30305a", "non_shortest"],
  ["indefinite array", "9f01ff", "indefinite_length"],
  ["indefinite map", "bf616101ff", "indefinite_length"],
  ["indefinite bytes", "5f4101ff", "indefinite_length"],
  ["indefinite text", "7f6161ff", "indefinite_length"],
  ["lone break", "ff", "indefinite_length"],
  ["duplicate key", "a2616101616102", "duplicate_key"],
  ["unsorted keys", "a2616201616102", "unsorted_keys"],
  ["longer key first", "a2626161016162" + "02", "unsorted_keys"],
  ["integer map key", "a10102", "key_type"],
  ["half float", "f93c00", "float"],
  ["single float", "fa47c35000", "float"],
  ["double float", "fb3ff199999999999a", "float"],
  ["undefined", "f7", "simple_value"],
  ["simple value 16", "f0", "simple_value"],
  ["extended simple value", "f820", "simple_value"],
  ["bignum 2^64 with a leading zero byte", "c24a00010000000000000000", "non_shortest"],
  ["bignum 2^64-1 (fits in 64 bits)", "c248ffffffffffffffff", "non_shortest"],
  ["bignum 1 (fits in 64 bits)", "c24101", "non_shortest"],
  ["bignum 0, empty bytes", "c240", "non_shortest"],
  ["bignum of a single zero byte", "c24100", "non_shortest"],
  ["bignum 2^256 (33 bytes)", "c2582101" + "00".repeat(32), "out_of_range"],
  ["bignum of 33 bytes with a leading zero", "c25821" + "00" + "ff".repeat(32), "non_shortest"],
  ["bignum over text", "c269616263646566676869", "tag"],
  ["bignum over an integer", "c21b0001000000000000", "tag"],
  ["bignum holding a bignum", "c2c249010000000000000000", "tag"],
  ["bignum length not shortest", "c2580901" + "00".repeat(8), "non_shortest"],
  ["bignum cut short", "c24901000000", "truncated"],
  ["negative bignum tag 3", "c349010000000000000000", "tag"],
  ["negative bignum tag 3 of a small value", "c34101", "tag"],
  ["tag 1 over a bignum", "c1c249010000000000000000", "tag"],
  ["tag 32 (URI)", "d8206161", "tag"],
  ["tag 0 over an integer", "c001", "tag"],
  ["tag 0 over a date without time", "c06a323031332d30332d3231", "tag"],
  ["tag 0 on 30 February", "c074323032362d30322d33305431323a30303a30305a", "tag"],
  ["tag 1 over text", "c16161", "tag"],
  ["17 nested arrays", "81".repeat(16) + "80", "too_deep"],
  ["17 nested maps", "a1616181".repeat(8) + "a0", "too_deep"],
  ["bytes longer than the input", "4401", "truncated"],
  ["text longer than the input", "6261", "truncated"],
  ["array count past the input", "830102", "truncated"],
  ["huge array count", "9affffffff", "truncated"],
  ["huge map count", "bbffffffffffffffff", "truncated"],
  ["huge text length", "7bffffffffffffffff", "truncated"],
  ["head cut short", "1a0001", "truncated"],
  ["trailing byte", "0000", "trailing_bytes"],
  ["two items", "a0a0", "trailing_bytes"],
  ["bad UTF-8", "62c328", "invalid_utf8"],
  ["reserved 28", "1c", "reserved"],
  ["reserved 30", "5e", "reserved"],
  ["empty input", "", "empty"],
  ["-2^64 (outside the profile)", "3bffffffffffffffff", "out_of_range"],
];

describe("canonical CBOR: hostile corpus", () => {
  it.each(HOSTILE)("refuses %s", (_name, input, problem) => {
    expect(() => decodeCanonical(bytes(input))).toThrow(
      expect.objectContaining({ name: "CborError", problem }),
    );
  });

  it("takes 16 levels of nesting", () => {
    expect(() => decodeCanonical(bytes("81".repeat(15) + "80"))).not.toThrow();
  });

  it("refuses more than 64 KiB before reading a byte of it", () => {
    const large = new Uint8Array(64 * 1024 + 1).fill(0xff);
    expect(() => decodeCanonical(large)).toThrow(expect.objectContaining({ problem: "too_large" }));
    const exact = encodeCanonical(new Uint8Array(64 * 1024 - 5 + 2));
    expect(exact.length).toBe(64 * 1024);
    expect(decodeCanonical(exact)).toBeInstanceOf(Uint8Array);
  });

  it("the encoder refuses what the profile cannot carry", () => {
    expect(() => encodeCanonical(1.5)).toThrow(expect.objectContaining({ problem: "float" }));
    expect(() => encodeCanonical(Number.NaN)).toThrow(expect.objectContaining({ problem: "float" }));
    expect(() => encodeCanonical(2n ** 256n)).toThrow(expect.objectContaining({ problem: "out_of_range" }));
    expect(() => encodeCanonical(-(2n ** 64n))).toThrow(expect.objectContaining({ problem: "out_of_range" }));
    expect(() => encodeCanonical(undefined as unknown as CborValue)).toThrow(CborError);
  });
});

const safeDate = fc
  .integer({ min: 0, max: 253402300799 })
  .map((seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z"));

/** Any value of the profile's data model, with integers as the decoder returns them. */
const cborValue: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc
      .bigInt({ min: -(2n ** 64n) + 1n, max: 2n ** 64n - 1n })
      .filter((n) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)),
    fc.bigInt({ min: 2n ** 64n, max: 2n ** 256n - 1n }),
    fc.integer({ min: 64, max: 255 }).map((power) => 2n ** BigInt(power)),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.uint8Array({ maxLength: 40 }),
    fc.boolean(),
    fc.constant(null),
    safeDate.map((text) => new CborTag(0, text)),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((seconds) => new CborTag(1, seconds)),
    fc.array(tie("value"), { maxLength: 5 }),
    fc
      .dictionary(fc.string({ unit: "grapheme", maxLength: 8 }), tie("value"), { maxKeys: 5 })
      .map((record) => new Map(Object.entries(record))),
  ),
})).value;

describe("canonical CBOR: properties", () => {
  it("decode(encode(x)) = x, and the bytes are a fixed point", () => {
    fc.assert(
      fc.property(cborValue, (value) => {
        const encoded = encodeCanonical(value);
        const decoded = decodeCanonical(encoded);
        expect(decoded).toEqual(value);
        expect(hex(encodeCanonical(decoded))).toBe(hex(encoded));
      }),
      { numRuns: 500 },
    );
  });

  it("an integer above 64 bits is always a bignum of 9 to 32 bytes, the first non-zero", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 64n, max: 2n ** 256n - 1n }), (value) => {
        const encoded = encodeCanonical(value);
        expect(encoded[0]).toBe(0xc2);
        const content = decodeCanonical(encoded.subarray(1)) as Uint8Array;
        expect(content.length).toBeGreaterThanOrEqual(9);
        expect(content.length).toBeLessThanOrEqual(32);
        expect(content[0]).not.toBe(0);
        expect(BigInt(`0x${hex(content)}`)).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("bignums with leading zeros or of values within 64 bits are refused, whatever the value", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.integer({ min: 0, max: 3 }),
        (value, zeros) => {
          const digits = value.toString(16);
          const minimal = value === 0n ? "" : digits.length % 2 === 0 ? digits : `0${digits}`;
          const content = bytes("00".repeat(zeros) + minimal);
          const encoded = new Uint8Array([0xc2, ...encodeCanonical(content)]);
          const canonical = zeros === 0 && value >= 2n ** 64n;
          if (canonical) expect(decodeCanonical(encoded)).toBe(value);
          else if (content.length > 32) expect(() => decodeCanonical(encoded)).toThrow(CborError);
          else
            expect(() => decodeCanonical(encoded)).toThrow(
              expect.objectContaining({ problem: "non_shortest" }),
            );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("random bytes never throw anything but CborError, and what decodes is canonical", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (input) => expectOnlyCborError(input)),
      { numRuns: 3000 },
    );
  });

  it("mutated encodings never throw anything but CborError", () => {
    const mutated = fc
      .tuple(cborValue, fc.nat(), fc.nat({ max: 255 }), fc.constantFrom("flip", "insert", "delete", "cut"))
      .map(([value, position, byte, how]) => {
        const encoded = [...encodeCanonical(value)];
        const at = position % (encoded.length + 1);
        if (how === "flip") encoded[at % encoded.length] = byte;
        else if (how === "insert") encoded.splice(at, 0, byte);
        else if (how === "delete") encoded.splice(at % encoded.length, 1);
        else encoded.length = at % encoded.length;
        return new Uint8Array(encoded);
      });
    fc.assert(
      fc.property(mutated, (input) => expectOnlyCborError(input)),
      { numRuns: 3000 },
    );
  });
});

function expectOnlyCborError(input: Uint8Array): void {
  let decoded: CborValue;
  try {
    decoded = decodeCanonical(input);
  } catch (error) {
    expect(error).toBeInstanceOf(CborError);
    return;
  }
  expect(hex(encodeCanonical(decoded))).toBe(hex(input));
}
