import { x402ResourceServer } from "@x402/core/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extensionEchoMismatch } from "../../src/protocol/extensionEchoMismatch.js";

const value = (info: unknown) => ({ info, schema: { type: "object" } });

describe("extensionEchoMismatch: the client's echo of the offer's extensions", () => {
  it.each([
    ["no extensions echoed", { bazaar: value({ a: 1 }) }, undefined, undefined],
    ["an empty echo", { bazaar: value({ a: 1 }) }, {}, undefined],
    ["the same value", { bazaar: value({ a: 1 }) }, { bazaar: value({ a: 1 }) }, undefined],
    [
      "keys in another order",
      { x: value({ a: 1, b: [1, 2] }) },
      { x: value({ b: [1, 2], a: 1 }) },
      undefined,
    ],
    [
      "a field added by the client",
      { pid: value({ required: false }) },
      { pid: value({ required: false, id: "p_1" }) },
      undefined,
    ],
    ["a changed value", { x: value({ a: 1 }) }, { x: value({ a: 2 }) }, "x"],
    ["a dropped field", { x: value({ a: 1, b: 2 }) }, { x: value({ a: 1 }) }, "x"],
    ["a nested change", { x: value({ a: { b: [1] } }) }, { x: value({ a: { b: [2] } }) }, "x"],
    ["a bare value where info was", { x: value({ a: 1 }) }, { x: "oops" }, "x"],
    ["an extension the offer never had", { x: value({ a: 1 }) }, { other: value({ z: 1 }) }, undefined],
    [
      "sign-in-with-x's fresh nonce",
      { "sign-in-with-x": value({ domain: "d", nonce: "1", issuedAt: "t1" }) },
      { "sign-in-with-x": value({ domain: "d", nonce: "2", issuedAt: "t2" }) },
      undefined,
    ],
    [
      "sign-in-with-x's domain changed",
      { "sign-in-with-x": value({ domain: "d", nonce: "1" }) },
      { "sign-in-with-x": value({ domain: "e", nonce: "1" }) },
      "sign-in-with-x",
    ],
    [
      "builder-code: codes added",
      { "builder-code": value({ s: ["a"] }) },
      { "builder-code": value({ s: ["a", "b"] }) },
      undefined,
    ],
    [
      "builder-code: an offered code dropped",
      { "builder-code": value({ s: ["a"] }) },
      { "builder-code": value({ s: ["b"] }) },
      "builder-code",
    ],
    [
      "builder-code: more than 10 codes",
      { "builder-code": value({ s: ["a"] }) },
      { "builder-code": value({ s: ["a", ..."bcdefghijk"] }) },
      "builder-code",
    ],
    [
      "builder-code: a server-owned field invented",
      undefined,
      { "builder-code": value({ a: "me" }) },
      "builder-code",
    ],
    [
      "__proto__ as a key",
      { x: value({ a: 1 }) },
      JSON.parse('{"__proto__": {"info": {"a": 1}}, "x": {"info": {"a": 1}}}'),
      undefined,
    ],
  ])("%s", (_name, offered, echoed, expected) => {
    expect(extensionEchoMismatch(offered as never, echoed as never)).toBe(expected);
  });

  it("decides as the official x402ResourceServer.validateExtensions for any offer and echo", () => {
    const server = new x402ResourceServer();
    const key = fc.constantFrom("bazaar", "payment-identifier", "builder-code", "x");
    const info = fc.dictionary(fc.constantFrom("a", "b", "s", "id"), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 3,
    });
    const extensions = fc.dictionary(key, fc.oneof(info.map(value), info), { maxKeys: 3 });
    // Echoes near the offer: the offer itself, changed a little, or something else.
    const pair = extensions.chain((offered) =>
      fc.tuple(
        fc.constant(offered),
        fc.oneof(
          fc.constant(offered),
          extensions,
          fc.tuple(key, info).map(([k, i]) => ({
            ...offered,
            [k]: value({ ...(offered[k] as { info?: object })?.info, ...i }),
          })),
        ),
      ),
    );
    fc.assert(
      fc.property(pair, ([offered, echoed]) => {
        const official = server.validateExtensions(
          { x402Version: 2, resource: { url: "http://x/" }, accepts: [], extensions: offered } as never,
          { x402Version: 2, accepted: {}, payload: {}, extensions: echoed } as never,
        );
        const ours = extensionEchoMismatch(offered, echoed);
        expect(ours === undefined).toBe(official.valid);
        if (!official.valid) expect(ours).toBe((official as { extensionKey?: string }).extensionKey);
      }),
      { numRuns: 2000 },
    );
  });
});
