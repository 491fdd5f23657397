import fc from "fast-check";
import { hash } from "starknet";
import { describe, expect, it } from "vitest";
import { minimalFelt, selectorOf } from "../../src/starknet/StarknetRpc.js";

// starknet.js (a dependency the recognizer no longer loads) is the reference for our few lines.
describe("selectorOf (starknet_keccak of an entry point name)", () => {
  it.each(["est_ouverte", "transfer", "balanceOf", "is_valid_signature", "__execute__", "", "é"])(
    "is starknet.js's getSelectorFromName for %j",
    (name) => {
      expect(selectorOf(name)).toBe(minimalFelt(hash.getSelectorFromName(name)));
    },
  );

  it("is starknet.js's getSelectorFromName for any name, below 2^250 (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (name) => {
        const selector = selectorOf(name);
        expect(selector).toBe(minimalFelt(hash.getSelectorFromName(name)));
        expect(BigInt(selector) < 1n << 250n).toBe(true);
      }),
    );
  });
});
