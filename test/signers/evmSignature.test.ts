import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evmIntentKey } from "../../src/payer/evmIntentKey.js";
import { decodeQuantifiedClaim, encodeClaim, type QuantifiedClaim } from "../../src/protocol/cbor/Claim.js";
import { CURRENCIES } from "../../src/protocol/cbor/profile.js";
import { EvmSigner } from "../../src/signers/EvmSigner.js";
import { EVM_SIGNATURE_BYTES, decodeEvmSignature } from "../../src/signers/evmSignatureBytes.js";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const word = (value: bigint) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");
const signature = (r: bigint, s: bigint, v: number) =>
  new Uint8Array(Buffer.concat([word(r), word(s), Buffer.from([v])]));

describe("an EVM signature: 65 bytes r ‖ s ‖ v", () => {
  it.each([
    ["v 27", signature(1n, 1n, 27)],
    ["v 28, s at n/2", signature(N - 1n, N / 2n, 28)],
  ])("reads %s", (_name, bytes) => {
    expect(decodeEvmSignature(bytes)).toBe(`0x${Buffer.from(bytes).toString("hex")}`);
  });

  const refused: Array<[string, Uint8Array]> = [
    ["no bytes", new Uint8Array(0)],
    ["64 bytes (a compact signature)", new Uint8Array(64).fill(1)],
    ["66 bytes", new Uint8Array(66).fill(1)],
    ["a Stark [r, s] pair", new Uint8Array(64)],
    ["v 0 (a y-parity, not a v)", signature(1n, 1n, 0)],
    ["v 1", signature(1n, 1n, 1)],
    ["v 29", signature(1n, 1n, 29)],
    ["v 37 (EIP-155 style)", signature(1n, 1n, 37)],
    ["r zero", signature(0n, 1n, 27)],
    ["s zero", signature(1n, 0n, 27)],
    ["r at the order", signature(N, 1n, 27)],
    ["r all ones", signature(2n ** 256n - 1n, 1n, 27)],
    ["s in the upper half (malleable twin)", signature(1n, N / 2n + 1n, 27)],
    ["s at the order", signature(1n, N, 28)],
  ];
  it.each(refused)("refuses %s with a RangeError", (_name, bytes) => {
    expect(() => decodeEvmSignature(bytes)).toThrow(RangeError);
  });

  it("random bytes: read back unchanged, or a RangeError, nothing else", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 80 }), fc.uint8Array({ minLength: 65, maxLength: 65 })),
        (bytes) => {
          try {
            expect(decodeEvmSignature(bytes)).toBe(`0x${Buffer.from(bytes).toString("hex")}`);
            expect(bytes.length).toBe(EVM_SIGNATURE_BYTES);
          } catch (error) {
            expect(error).toBeInstanceOf(RangeError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("EvmSigner.verify", () => {
  const claimArbitrary = fc.record({
    object: fc.string({ minLength: 1, maxLength: 40 }),
    currency: fc.constantFrom(...CURRENCIES),
    amount: fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }),
    time: fc.integer({ min: 1, max: 2 ** 32 }),
    context: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    flip: fc.nat({ max: EVM_SIGNATURE_BYTES - 1 }),
  });

  it("any intent an EOA signs verifies; one flipped signature byte, another chain or another subject does not", async () => {
    const key = await evmIntentKey({
      privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
      chainId: 31337,
    });
    const signer = new EvmSigner({ chainId: 31337 });
    const otherChain = new EvmSigner({ chainId: 1 });
    await fc.assert(
      fc.asyncProperty(claimArbitrary, async ({ object, currency, amount, time, context, flip }) => {
        const claim: QuantifiedClaim = {
          subject: key.publicKey,
          signer: "evm",
          predicate: "pays",
          object,
          quantity: { currency, amount },
          time,
          context,
        };
        const bytes = encodeClaim(claim);
        const decoded = decodeQuantifiedClaim(bytes);
        const signed = key.sign(bytes);
        expect(await signer.verify({ bytes, claim: decoded, signature: signed })).toEqual({ valid: true });
        expect((await otherChain.verify({ bytes, claim: decoded, signature: signed })).valid).toBe(false);
        const elsewhere = { ...decoded, subject: new Uint8Array(20).fill(9) };
        expect((await signer.verify({ bytes, claim: elsewhere, signature: signed })).valid).toBe(false);
        const tampered = Uint8Array.from(signed);
        tampered[flip] = tampered[flip]! ^ 1;
        expect((await signer.verify({ bytes, claim: decoded, signature: tampered })).valid).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("refuses a chain id that is not a positive safe integer", () => {
    for (const chainId of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => new EvmSigner({ chainId })).toThrow(RangeError);
    }
  });
});
