import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import fc from "fast-check";
import { ed25519 } from "@noble/curves/ed25519";
import { describe, expect, it } from "vitest";
import { bytesOfHex, compareBytes, hexOfBytes } from "../../src/common/bytes.js";
import {
  equalBytesConstantTime,
  hmacSha256,
  randomBytes,
  randomUUID,
  sha256,
  sha256Hex,
  webHmacSha256,
  webSha256,
} from "../../src/common/digests.js";
import { createSigningKey, verifySignature } from "../../src/protocol/cbor/signatures.js";

/** The digests without `node:`: node:crypto is the oracle, for the Node path and the Web fallback alike. */
const nodeSha256 = (...parts: Array<Uint8Array | string>) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};
const part = fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.string({ maxLength: 80 }));

describe("digests without node: imports", () => {
  it("SHA-256 of one or more parts, bytes or UTF-8 text: as node:crypto, on both paths", () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        const expected = nodeSha256(...parts);
        expect(sha256(...parts)).toEqual(expected);
        expect(webSha256(...parts)).toEqual(expected);
        expect(sha256Hex(...parts)).toBe(Buffer.from(expected).toString("hex"));
      }),
      { numRuns: 500 },
    );
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("HMAC-SHA-256: as node:crypto, on both paths", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), part, (key, data) => {
        const expected = new Uint8Array(createHmac("sha256", key).update(data).digest());
        expect(hmacSha256(key, data)).toEqual(expected);
        expect(webHmacSha256(key, data)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("hex both ways; malformed hex refused", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = hexOfBytes(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString("hex"));
        expect(bytesOfHex(hex)).toEqual(bytes);
        expect(bytesOfHex(hex.toUpperCase())).toEqual(bytes);
      }),
    );
    for (const bad of ["a", "0g", "zz", " 00", "0x00", "00 "]) expect(bytesOfHex(bad)).toBeUndefined();
  });

  it("byte order as Buffer.compare (the canonical CBOR map key order)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 6 }), fc.uint8Array({ maxLength: 6 }), (a, b) => {
        expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it("constant-time equality agrees with node:crypto's timingSafeEqual (lengths differing: unequal)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        const expected = a.length === b.length && timingSafeEqual(a, b);
        expect(equalBytesConstantTime(a, b)).toBe(expected);
        expect(equalBytesConstantTime(a, new Uint8Array(a))).toBe(true);
      }),
    );
  });

  it("random bytes and UUIDs: the lengths and shapes asked for, and not repeated", () => {
    expect(randomBytes(32)).toHaveLength(32);
    expect(hexOfBytes(randomBytes(16))).not.toBe(hexOfBytes(randomBytes(16)));
    const uuids = new Set(Array.from({ length: 100 }, randomUUID));
    expect(uuids.size).toBe(100);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("Ed25519 where node:crypto is absent (@noble/curves, strict RFC 8032) agrees with node:crypto", () => {
  it("the same public key and signatures from a seed, and the same verdicts on altered ones", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 120 }),
        fc.nat(63),
        fc.integer({ min: 1, max: 255 }),
        (seed, message, at, flip) => {
          const key = createSigningKey("ed25519", seed);
          expect(ed25519.getPublicKey(seed)).toEqual(key.publicKey);
          const signature = key.sign(message);
          expect(ed25519.sign(message, seed)).toEqual(signature);
          expect(ed25519.verify(signature, message, key.publicKey, { zip215: false })).toBe(true);
          expect(verifySignature(key.publicKey, message, signature)).toBe(true);
          const altered = new Uint8Array(signature);
          altered[at] = (altered[at] as number) ^ flip;
          let noble: boolean;
          try {
            noble = ed25519.verify(altered, message, key.publicKey, { zip215: false });
          } catch {
            noble = false;
          }
          expect(noble).toBe(verifySignature(key.publicKey, message, altered));
        },
      ),
      { numRuns: 150 },
    );
  });
});
