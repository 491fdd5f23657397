import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../src/protocol/cbor/CborError.js";
import { CborTag, type CborValue } from "../../src/protocol/cbor/CborValue.js";
import { decodeClaim, encodeClaim, readSubject, type Claim } from "../../src/protocol/cbor/Claim.js";
import { encodeCanonical } from "../../src/protocol/cbor/encodeCanonical.js";
import { STARK_FIELD_PRIME, SIGNER_IDS } from "../../src/protocol/cbor/profile.js";
import {
  MAX_STARKNET_SIGNATURE_WORDS,
  decodeStarknetSignature,
  encodeStarknetSignature,
} from "../../src/signers/starknetSignatureWords.js";

const bytes = (length: number, fill = 1) => new Uint8Array(length).fill(fill);
const felt = (value: bigint) => new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));

describe("a claim's subject: a bare key, or [signer id, identity]", () => {
  const accepted: Array<[string, CborValue, string | undefined, number]> = [
    ["an Ed25519 key, bare", bytes(32), undefined, 32],
    ["an ML-DSA-65 key, bare", bytes(1952), undefined, 1952],
    ["a Starknet account", ["starknet-account", felt(STARK_FIELD_PRIME - 1n)], "starknet-account", 32],
    ["a Stark key", ["starknet-key", felt(1n)], "starknet-key", 32],
    ["an EVM address", ["evm", bytes(20)], "evm", 20],
    ["a UTXO key, compressed", ["utxo", bytes(33, 2)], "utxo", 33],
    ["an Ed25519-chain account", ["ed25519-chain", bytes(32)], "ed25519-chain", 32],
  ];
  it.each(accepted)("reads %s", (_name, value, signer, length) => {
    const read = readSubject(value);
    expect(read.signer).toBe(signer);
    expect(read.subject.length).toBe(length);
  });

  const refused: Array<[string, CborValue, string]> = [
    ["a bare key of another length", bytes(33), "claim.subject"],
    ["an empty byte string", bytes(0), "claim.subject"],
    ["text", "starknet-account", "claim.subject"],
    ["null", null, "claim.subject"],
    ["an integer", 5, "claim.subject"],
    ["an empty array", [], "claim.subject"],
    ["a one-element array", ["starknet-account"], "claim.subject"],
    ["three elements", ["starknet-account", felt(1n), "extra"], "claim.subject"],
    ["the identity as text", ["starknet-account", "0x1"], "claim.subject"],
    ["an unknown signer id", ["solana", bytes(32)], "claim.subject[0]"],
    ["a signer id in another case", ["Starknet-Account", felt(1n)], "claim.subject[0]"],
    ["a signer id as bytes", [bytes(3), felt(1n)], "claim.subject[0]"],
    ["service-auth spelled out", ["service-auth", bytes(32)], "claim.subject"],
    ["a short Starknet identity", ["starknet-account", bytes(31)], "claim.subject[1]"],
    ["a long Starknet identity", ["starknet-key", bytes(33)], "claim.subject[1]"],
    [
      "a Starknet identity at the field prime",
      ["starknet-account", felt(STARK_FIELD_PRIME)],
      "claim.subject[1]",
    ],
    ["a Starknet identity of all ones", ["starknet-account", bytes(32, 0xff)], "claim.subject[1]"],
    ["a 32-byte EVM identity", ["evm", bytes(32)], "claim.subject[1]"],
    ["a 65-byte UTXO key", ["utxo", bytes(65)], "claim.subject[1]"],
    ["a tag as the identity", ["evm", new CborTag(1, 20)], "claim.subject"],
  ];
  it.each(refused)("refuses %s, naming where", (_name, value, at) => {
    let caught: unknown;
    try {
      readSubject(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CborError);
    expect((caught as CborError).message).toContain(at);
  });

  const claimOf = (subject: Uint8Array, signer?: Claim["signer"]): Claim => ({
    subject,
    signer,
    predicate: "pays",
    object: "merchant",
    quantity: { currency: "USDC", amount: 1n },
    time: 1_700_000_000,
    context: bytes(32),
  });

  it("a named subject encodes as [signer, identity] and decodes back; a bare key's bytes are unchanged", () => {
    const starknet = claimOf(felt(5n), "starknet-account");
    const decoded = decodeClaim(encodeClaim(starknet));
    expect(decoded.signer).toBe("starknet-account");
    expect(decoded.subject).toEqual(felt(5n));
    const bare = claimOf(bytes(32));
    expect(decodeClaim(encodeClaim(bare)).signer).toBeUndefined();
    expect(encodeClaim(bare)[1]).toBe(0x58); // the subject is still a bare 32-byte string
  });

  it("any CBOR value as the subject: read, or refused with a CborError, nothing else", () => {
    const value: fc.Arbitrary<CborValue> = fc.oneof(
      fc.uint8Array({ maxLength: 80 }),
      fc.tuple(
        fc.oneof(fc.constantFrom(...SIGNER_IDS), fc.string({ maxLength: 20 })),
        fc.uint8Array({ maxLength: 40 }),
      ),
      fc.array(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 40 }), fc.integer()), { maxLength: 4 }),
      fc.string(),
      fc.integer(),
      fc.constant(null),
    ) as fc.Arbitrary<CborValue>;
    fc.assert(
      fc.property(value, (subject) => {
        let read: ReturnType<typeof readSubject> | undefined;
        try {
          read = readSubject(subject);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
          return;
        }
        // What reads round-trips through a whole claim to the same subject.
        const claim = decodeClaim(encodeClaim(claimOf(read.subject, read.signer)));
        expect(claim.subject).toEqual(read.subject);
        expect(claim.signer).toBe(read.signer);
      }),
    );
  });

  it("whole claims whose subject array is mutated: decoded or a CborError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.string({ maxLength: 16 }), (identity, signer) => {
        const bytes = encodeCanonical([
          [signer, identity],
          "pays",
          "m",
          ["USDC", 1],
          new CborTag(1, 1),
          new Uint8Array(32),
        ]);
        try {
          decodeClaim(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
        }
      }),
    );
  });
});

describe("a layer-2 signature: whole 32-byte felts", () => {
  const refused: Array<[string, Uint8Array]> = [
    ["no bytes", bytes(0)],
    ["31 bytes", bytes(31)],
    ["33 bytes", bytes(33)],
    ["64 + 1 bytes", bytes(65)],
    ["a felt at the field prime", felt(STARK_FIELD_PRIME)],
    ["a word of all ones", bytes(32, 0xff)],
    ["17 felts", bytes(32 * (MAX_STARKNET_SIGNATURE_WORDS + 1), 0)],
  ];
  it.each(refused)("refuses %s with a RangeError", (_name, signature) => {
    expect(() => decodeStarknetSignature(signature)).toThrow(RangeError);
  });

  it("reads [r, s] and the 16-felt maximum", () => {
    expect(decodeStarknetSignature(new Uint8Array([...felt(1n), ...felt(STARK_FIELD_PRIME - 1n)]))).toEqual([
      "0x1",
      `0x${(STARK_FIELD_PRIME - 1n).toString(16)}`,
    ]);
    expect(decodeStarknetSignature(bytes(32 * MAX_STARKNET_SIGNATURE_WORDS, 0))).toHaveLength(16);
  });

  it("felts round-trip; random bytes decode or throw a RangeError, nothing else", () => {
    const word = fc.bigInt({ min: 0n, max: STARK_FIELD_PRIME - 1n });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: MAX_STARKNET_SIGNATURE_WORDS }), (words) => {
        const decoded = decodeStarknetSignature(encodeStarknetSignature(words));
        expect(decoded.map(BigInt)).toEqual(words);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (signature) => {
        try {
          const words = decodeStarknetSignature(signature);
          expect(words.length * 32).toBe(signature.length);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
        }
      }),
    );
  });
});
