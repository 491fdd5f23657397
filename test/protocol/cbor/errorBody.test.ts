import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { decodeCanonical } from "../../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import { decodeErrorBody, encodeErrorBody } from "../../../src/protocol/cbor/ErrorBody.js";
import type { CborValue } from "../../../src/protocol/cbor/CborValue.js";

// The error body a CBOR client gets: canonical `{ error, reason, details? }`, details kept only where
// CBOR carries them exactly (no floats, nothing nested but lists of text).
describe("ErrorBody", () => {
  it("keeps text, safe integers, booleans and lists of text; drops the rest", () => {
    const bytes = encodeErrorBody("payment_mismatch", "the PaymentRequest has expired", {
      field: "payment_intent.context",
      at: 12,
      retry: false,
      supported: ["application/json", "application/x402+cbor"],
      fraction: 0.5,
      huge: 2 ** 60,
      nested: { secret: "never a map" },
      mixed: ["a", 1],
      missing: undefined,
    });
    const body = decodeErrorBody(bytes);
    expect(body.error).toBe("payment_mismatch");
    expect(body.reason).toBe("the PaymentRequest has expired");
    expect(Object.fromEntries(body.details)).toEqual({
      field: "payment_intent.context",
      at: 12,
      retry: false,
      supported: ["application/json", "application/x402+cbor"],
    });
    // Canonical: decoding and re-encoding gives the same bytes.
    expect(encodeCanonical(decodeCanonical(bytes))).toEqual(bytes);
  });

  it("no details: no details key", () => {
    const map = decodeCanonical(encodeErrorBody("payment_in_progress", "retry later", {}), { expect: "map" });
    expect([...map.keys()]).toEqual(["error", "reason"]);
  });

  const map = (entries: Array<[string, CborValue]>) => encodeCanonical(new Map(entries));
  it.each<[string, Uint8Array]>([
    ["not a map", encodeCanonical(["error", "reason"])],
    ["no error", map([["reason", "x"]])],
    ["no reason", map([["error", "x"]])],
    [
      "error not text",
      map([
        ["error", 1],
        ["reason", "x"],
      ]),
    ],
    [
      "details not a map",
      map([
        ["error", "x"],
        ["reason", "y"],
        ["details", "z"],
      ]),
    ],
    [
      "an unknown key",
      map([
        ["error", "x"],
        ["reason", "y"],
        ["extra", 1],
      ]),
    ],
    [
      "non-canonical (unsorted keys)",
      Uint8Array.from([
        0xa2,
        0x66,
        ...Buffer.from("reason"),
        0x61,
        0x79,
        0x65,
        ...Buffer.from("error"),
        0x61,
        0x78,
      ]),
    ],
    [
      "trailing bytes",
      Uint8Array.from([
        ...map([
          ["error", "x"],
          ["reason", "y"],
        ]),
        0x00,
      ]),
    ],
    ["empty", new Uint8Array()],
  ])("refuses %s", (_name, bytes) => {
    expect(() => decodeErrorBody(bytes)).toThrow(CborError);
  });

  it("property: any code, reason and plain details round-trip; random bytes decode or throw CborError only", () => {
    const plain = fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      fc.array(fc.string(), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.dictionary(fc.string({ minLength: 1 }), plain),
        (code, reason, details) => {
          const body = decodeErrorBody(encodeErrorBody(code, reason, details));
          expect(body.error).toBe(code);
          expect(body.reason).toBe(reason);
          expect(Object.fromEntries(body.details)).toEqual(details);
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decodeErrorBody(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
