import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import type { CborValue } from "../../../src/protocol/cbor/CborValue.js";
import { CborTag } from "../../../src/protocol/cbor/CborValue.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import {
  decodeCborSettlementStatus,
  encodeCborSettlementStatus,
  formatIntentDigest,
  parseIntentDigest,
  type CborSettlementStatusMessage,
} from "../../../src/protocol/cbor/facilitatorMessages.js";

const status: fc.Arbitrary<CborSettlementStatusMessage> = fc.oneof(
  fc.constant({ settled: false as const }),
  fc.uint8Array({ maxLength: 300 }).map((receipt) => ({ settled: true as const, receipt })),
);

const map = (entries: Array<[string, CborValue]>) => encodeCanonical(new Map(entries));
const hex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s/g, ""), "hex"));

describe("GET /settlements answer: { settled, receipt? }", () => {
  it("property: decode(encode(x)) = x, and the encoding is canonical (one encoding per answer)", () => {
    fc.assert(
      fc.property(status, (value) => {
        const bytes = encodeCborSettlementStatus(value);
        expect(decodeCborSettlementStatus(bytes)).toEqual(value);
        expect(encodeCborSettlementStatus(decodeCborSettlementStatus(bytes))).toEqual(bytes);
      }),
    );
  });

  it("encodes exactly the documented maps", () => {
    // {"settled": false}
    expect(Buffer.from(encodeCborSettlementStatus({ settled: false })).toString("hex")).toBe(
      "a167736574746c6564f4",
    );
    // {"receipt": h'0102', "settled": true}: keys in canonical (length, then bytewise) order.
    expect(
      Buffer.from(encodeCborSettlementStatus({ settled: true, receipt: hex("0102") })).toString("hex"),
    ).toBe("a2677265636569707442010267736574746c6564f5");
  });

  // Each a hostile or malformed answer a facilitator (or a proxy in between) could send.
  const hostile: Array<[string, Uint8Array, string]> = [
    ["empty", new Uint8Array(), "cbor_empty"],
    ["not a map", encodeCanonical([true]), "cbor_wrong_type"],
    ["a bare bool", encodeCanonical(true), "cbor_wrong_type"],
    ["no settled", map([]), "cbor_missing_key"],
    ["settled as text", map([["settled", "true"]]), "cbor_wrong_type"],
    ["settled as 1", map([["settled", 1]]), "cbor_wrong_type"],
    ["settled true without a receipt", map([["settled", true]]), "cbor_missing_key"],
    [
      "settled false with a receipt",
      map([
        ["settled", false],
        ["receipt", hex("01")],
      ]),
      "cbor_unknown_key",
    ],
    [
      "receipt as text",
      map([
        ["settled", true],
        ["receipt", "01"],
      ]),
      "cbor_wrong_type",
    ],
    [
      "receipt as an array",
      map([
        ["settled", true],
        ["receipt", [hex("01")]],
      ]),
      "cbor_wrong_type",
    ],
    [
      "receipt tagged (24: embedded CBOR)",
      hex("a2 6772656365697074 d818 4101 67736574746c6564 f5"),
      "cbor_tag",
    ],
    [
      "receipt as a date tag",
      map([
        ["settled", true],
        ["receipt", new CborTag(1, 0)],
      ]),
      "cbor_wrong_type",
    ],
    [
      "an extra key",
      map([
        ["settled", false],
        ["x", 0],
      ]),
      "cbor_unknown_key",
    ],
    ["keys out of order", hex("a2 67736574746c6564f5 6772656365697074 420102"), "cbor_unsorted_keys"],
    ["duplicate key", hex("a2 67736574746c6564f4 67736574746c6564f4"), "cbor_duplicate_key"],
    ["indefinite map", hex("bf 67736574746c6564f4 ff"), "cbor_indefinite_length"],
    ["non-shortest length", hex("b80167736574746c6564f4"), "cbor_non_shortest"],
    ["truncated", hex("a167736574746c6564"), "cbor_truncated"],
    ["trailing bytes", hex("a167736574746c6564f4 00"), "cbor_trailing_bytes"],
    ["a float", hex("a167736574746c6564 f93c00"), "cbor_float"],
    ["undefined", hex("a167736574746c6564 f7"), "cbor_simple_value"],
    ["integer key", hex("a1 01 f4"), "cbor_key_type"],
    ["too large", new Uint8Array(70 * 1024).fill(0x40), "cbor_too_large"],
  ];

  it.each(hostile)("refuses %s with a CborError naming the problem", (_name, bytes, code) => {
    let thrown: unknown;
    try {
      decodeCborSettlementStatus(bytes);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CborError);
    expect((thrown as CborError).code).toBe(code);
  });

  it("property: arbitrary bytes are decoded or refused with a CborError, never anything else", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          const decoded = decodeCborSettlementStatus(bytes);
          expect(encodeCborSettlementStatus(decoded)).toEqual(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
        }
      }),
    );
  });
});

describe("the intent digest in the path", () => {
  it("property: parse(format(d)) = d for every 32-byte digest; format writes 64 lowercase hex digits", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (digest) => {
        const segment = formatIntentDigest(digest);
        expect(segment).toMatch(/^[0-9a-f]{64}$/);
        expect(parseIntentDigest(segment)).toEqual(digest);
      }),
    );
  });

  it("format refuses a digest of any other length", () => {
    for (const length of [0, 31, 33, 64]) {
      expect(() => formatIntentDigest(new Uint8Array(length)), String(length)).toThrow(/32 bytes/);
    }
  });

  const good = "ab".repeat(32);
  const malformed: Array<[string, string]> = [
    ["empty", ""],
    ["63 digits", good.slice(1)],
    ["65 digits", `${good}0`],
    ["uppercase", good.toUpperCase()],
    ["a non-hex digit", `g${good.slice(1)}`],
    ["percent-encoded", `%61${good.slice(1)}`],
    ["a trailing slash", `${good}/`],
    ["a query", `${good}?x=1`],
    ["a dot segment", `../${good}`],
    ["a leading space", ` ${good.slice(1)}`],
    ["a trailing newline", `${good}\n`],
    ["0x prefix", `0x${good.slice(2)}`],
    ["base64 of 32 bytes", Buffer.alloc(32).toString("base64")],
  ];
  it.each(malformed)("parse refuses %s", (_name, segment) => {
    expect(parseIntentDigest(segment)).toBeUndefined();
  });

  it("property: of near-digests (hex-ish, 62 to 66 characters), only 64 lowercase hex digits parse, and they format back", () => {
    const near = fc.string({
      unit: fc.constantFrom(..."0123456789abcdefABCDEFg-"),
      minLength: 62,
      maxLength: 66,
    });
    fc.assert(
      fc.property(near, (segment) => {
        const parsed = parseIntentDigest(segment);
        const wellFormed = segment.length === 64 && !/[A-Fg-]/.test(segment);
        expect(parsed !== undefined).toBe(wellFormed);
        if (parsed !== undefined) expect(formatIntentDigest(parsed)).toBe(segment);
      }),
    );
  });
});
