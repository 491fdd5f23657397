import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { negotiatePaymentFormat } from "../../src/protocol/negotiatePaymentFormat.js";
import { parseMediaType } from "../../src/protocol/parseMediaType.js";

// Content-Type read strictly (RFC 9110 §8.3.1): one media type, token characters, OWS around `;`,
// parameters `name=token` or `name="quoted"`, case-insensitive names. What a payment format is follows.
const TCHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const token = fc.string({ unit: fc.constantFrom(...TCHARS), minLength: 1, maxLength: 12 });

describe("parseMediaType", () => {
  it.each<[string, string | undefined, Record<string, string>?]>([
    ["application/x402+cbor", "application/x402+cbor", {}],
    ["APPLICATION/X402+CBOR", "application/x402+cbor", {}],
    ["  application/x402+cbor \t", "application/x402+cbor", {}],
    ["application/x402+cbor;charset=binary", "application/x402+cbor", { charset: "binary" }],
    ["application/x402+cbor ; Charset = x", undefined],
    ["application/x402+cbor \t;\t CHARSET=Binary", "application/x402+cbor", { charset: "Binary" }],
    ['application/x402+cbor; v="a;b \\" c"', "application/x402+cbor", { v: 'a;b " c' }],
    ["application/x402+cbor;", "application/x402+cbor", {}],
    ["application/x402+cbor;;", "application/x402+cbor", {}],
    ["application/x402+cbor; a=1; a=2", undefined],
    ["application/x402+cbor; a=1; A=2", undefined],
    ["application/x402+cbor;charset", undefined],
    ["application/x402+cbor;=x", undefined],
    ['application/x402+cbor; v="open', undefined],
    ["application/x402+cbor, application/json", undefined],
    ["application/x402+cbor application/json", undefined],
    ["application /x402+cbor", undefined],
    ["application/ x402+cbor", undefined],
    ["application/x402+cb or", undefined],
    ["application/x402+cbör", undefined],
    ["application/x402+cbor\u0000", undefined],
    ["application", undefined],
    ["/x402+cbor", undefined],
    ["application/", undefined],
    ["", undefined],
    [";", undefined],
    ["a/b/c", undefined],
    ["text/plain; charset=utf-8", "text/plain", { charset: "utf-8" }],
  ])("%j → %j", (value, essence, parameters) => {
    const parsed = parseMediaType(value);
    expect(parsed?.essence).toBe(essence);
    if (parameters !== undefined) expect(Object.fromEntries(parsed?.parameters ?? [])).toEqual(parameters);
  });

  it("property: type/subtype with any valid parameters parses back to what was written, case folded", () => {
    fc.assert(
      fc.property(
        token,
        token,
        fc.uniqueArray(fc.tuple(token, token), { selector: ([name]) => name.toLowerCase(), maxLength: 4 }),
        fc.constantFrom("", " ", "\t", " \t "),
        (type, subtype, parameters, space) => {
          const text = `${type}/${subtype}${parameters.map(([n, v]) => `${space};${space}${n}=${v}`).join("")}`;
          const parsed = parseMediaType(text);
          expect(parsed?.essence).toBe(`${type}/${subtype}`.toLowerCase());
          expect([...(parsed?.parameters ?? [])]).toEqual(parameters.map(([n, v]) => [n.toLowerCase(), v]));
        },
      ),
    );
  });

  it("property: never throws, and anything it accepts has a token type and subtype", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const parsed = parseMediaType(text);
        if (parsed !== undefined)
          expect(parsed.essence).toMatch(/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("negotiatePaymentFormat", () => {
  it.each<[string | undefined, string]>([
    [undefined, "json"],
    ["application/json", "json"],
    ["text/plain, application/x402+foo", "json"],
    ["application/vnd.x402+json", "json"],
    ["application/x402+cbor", "cbor"],
    ["Application/X402+Cbor; charset=binary", "cbor"],
    ["application/x402+json", "415 application/x402+json"],
    ["application/x402", "415 application/x402"],
    ["APPLICATION/X402+FOO; v=1", "415 application/x402+foo"],
    ["application/x402+cbor, application/json", "415 application/x402+cbor, application/json"],
    ["application/x402+cbor;charset", "415 application/x402+cbor;charset"],
    ["application/x402+cbor garbage", "415 application/x402+cbor garbage"],
    ["application/x402+cbör", "415 application/x402+cb?r"],
    [`application/x402+${"x".repeat(200)}`, `415 application/x402+${"x".repeat(46)}~`],
    [`application/x402+cbor;${"x".repeat(200)}`, `415 application/x402+cbor;${"x".repeat(41)}~`],
  ])("%j → %s", (contentType, expected) => {
    const format = negotiatePaymentFormat(contentType);
    expect(format.ok ? format.format : `415 ${format.mediaType}`).toBe(expected);
  });

  it("property: CBOR exactly when the value is one well-formed application/x402+cbor, any case and parameters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.boolean(), (tail, upper) => {
        const essence = upper ? "APPLICATION/X402+CBOR" : "application/x402+cbor";
        const value = `${essence}${tail}`;
        const format = negotiatePaymentFormat(value);
        const wellFormed = parseMediaType(value)?.essence === "application/x402+cbor";
        // Never handed to the resource as JSON: CBOR, or refused.
        expect(format.ok ? format.format : "refused").toBe(wellFormed ? "cbor" : "refused");
      }),
      { numRuns: 1000 },
    );
  });
});
