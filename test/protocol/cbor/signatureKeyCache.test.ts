import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSigningKey, verifySignature } from "../../../src/protocol/cbor/signatures.js";

// verifySignature keeps the last 1,024 Ed25519 keys parsed: a kept key must judge exactly as a fresh one.
const keys = Array.from({ length: 4 }, () => createSigningKey("ed25519"));

describe("verifySignature with Ed25519 keys kept parsed", () => {
  it("the same key bytes, met again (also inside a larger buffer), judge each signature as the first time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.nat({ max: 16 }),
        (signer, claimed, message, offset) => {
          const signature = (keys[signer] as (typeof keys)[0]).sign(message);
          const publicKey = (keys[claimed] as (typeof keys)[0]).publicKey;
          // The key as a view at an offset into a larger buffer, as a decoder hands it out.
          const backing = new Uint8Array(offset + publicKey.length + 3);
          backing.set(publicKey, offset);
          const view = backing.subarray(offset, offset + publicKey.length);
          const expected = signer === claimed;
          expect(verifySignature(publicKey, message, signature)).toBe(expected);
          expect(verifySignature(view, message, signature)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("past 1,024 keys the oldest are parsed again, and still judge right", () => {
    const message = new Uint8Array([1, 2, 3]);
    const first = createSigningKey("ed25519");
    const signature = first.sign(message);
    expect(verifySignature(first.publicKey, message, signature)).toBe(true);
    for (let i = 0; i < 1_100; i++) {
      const other = createSigningKey("ed25519");
      expect(verifySignature(other.publicKey, message, signature)).toBe(false);
    }
    expect(verifySignature(first.publicKey, message, signature)).toBe(true);
    const tampered = new Uint8Array(signature);
    tampered[0] = (tampered[0] as number) ^ 1;
    expect(verifySignature(first.publicKey, message, tampered)).toBe(false);
  });
});
