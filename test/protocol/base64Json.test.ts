import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Base64JsonError, decodeBase64Json, encodeBase64Json } from "../../src/protocol/base64Json.js";

// Keys the decoder drops on purpose would not round-trip.
const jsonWithoutPrototypeKeys = fc
  .jsonValue()
  .filter((json) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(json)));

describe("base64 JSON codec", () => {
  const value = { x402Version: 2, accepted: { amount: "1000", note: "ünïcödé ~~~ ???" } };

  it("round-trips padded, unpadded and base64url forms", () => {
    const padded = encodeBase64Json(value);
    const unpadded = padded.replace(/=+$/, "");
    const url = unpadded.replace(/\+/g, "-").replace(/\//g, "_");
    expect(decodeBase64Json(padded)).toEqual(value);
    expect(decodeBase64Json(unpadded)).toEqual(value);
    expect(decodeBase64Json(url)).toEqual(value);
  });

  it("names the layer that failed", () => {
    expect(() => decodeBase64Json("%%%")).toThrow(expect.objectContaining({ stage: "base64" }));
    expect(() => decodeBase64Json(Buffer.from([0xff, 0xfe]).toString("base64"))).toThrow(
      expect.objectContaining({ stage: "utf8" }),
    );
    expect(() => decodeBase64Json(Buffer.from("{nope").toString("base64"))).toThrow(
      expect.objectContaining({ stage: "json" }),
    );
    expect(() => decodeBase64Json("")).toThrow(Base64JsonError);
  });

  it("drops __proto__ and constructor keys", () => {
    const decoded = decodeBase64Json(
      Buffer.from('{"__proto__":{"polluted":1},"constructor":{"x":1},"a":1}').toString("base64"),
    ) as Record<string, unknown>;
    expect(decoded).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("drops those keys at any depth, also when the key is spelled with \\u escapes", () => {
    const text = String.raw`{"a":[{"b":{"__pro\u0074o__":{"polluted":1},"c\u006fnstructor":2,"d":4}}]}`;
    const decoded = decodeBase64Json(Buffer.from(text).toString("base64"));
    expect(decoded).toEqual({ a: [{ b: { d: 4 } }] });
    expect(JSON.stringify(decoded)).toBe('{"a":[{"b":{"d":4}}]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("property: decodes as JSON.parse with a reviver that drops the prototype keys, keys chosen to hit them", () => {
    const dangerous = fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "a",
      "proto",
      "__pro\\u0074o__",
    );
    const keyed = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie("value")),
        fc.dictionary(fc.oneof(dangerous, fc.string()), tie("value")),
      ),
    })).value;
    const reference = (json: string): unknown =>
      JSON.parse(json, (key: string, value: unknown) =>
        key === "__proto__" || key === "constructor" || key === "prototype" ? undefined : value,
      );
    fc.assert(
      fc.property(keyed, (value) => {
        const json = JSON.stringify(value).replaceAll("__pro\\\\u0074o__", "__pro\\u0074o__");
        expect(decodeBase64Json(Buffer.from(json).toString("base64"))).toEqual(reference(json));
      }),
    );
  });

  it("property: any JSON value round-trips, and no input makes it throw anything but Base64JsonError", () => {
    fc.assert(
      fc.property(jsonWithoutPrototypeKeys, (json) => {
        const normal = JSON.parse(JSON.stringify(json)) as unknown;
        expect(decodeBase64Json(encodeBase64Json(normal))).toEqual(normal);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          decodeBase64Json(text);
        } catch (error) {
          expect(error).toBeInstanceOf(Base64JsonError);
        }
      }),
    );
  });
});
