import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { decodeClaim, encodeClaim, type Claim } from "../../../src/protocol/cbor/Claim.js";
import type { CborValue } from "../../../src/protocol/cbor/CborValue.js";
import { CborTag } from "../../../src/protocol/cbor/CborValue.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import {
  decodeCborFacilitatorRequest,
  decodeCborSettleResponse,
  decodeCborVerifyResponse,
  encodeCborFacilitatorRequest,
  encodeCborSettleResponse,
  encodeCborVerifyResponse,
} from "../../../src/protocol/cbor/facilitatorMessages.js";
import {
  decodePaymentRequest,
  encodePaymentRequest,
  type PaymentRequest,
} from "../../../src/protocol/cbor/PaymentRequest.js";
import {
  decodePaymentSignature,
  encodePaymentSignature,
  type PaymentSignature,
} from "../../../src/protocol/cbor/PaymentSignature.js";
import { CURRENCIES } from "../../../src/protocol/cbor/profile.js";
import {
  decodeSettlementReceipt,
  encodeSettlementReceipt,
  signReceipt,
} from "../../../src/protocol/cbor/SettlementReceipt.js";
import { createSigningKey, verifySignature } from "../../../src/protocol/cbor/signatures.js";
import { isStandInProof, standInProof } from "../../../src/protocol/cbor/standInProof.js";
import { verifyReceipt } from "../../../src/protocol/cbor/verifyReceipt.js";

const text = fc.string({ unit: "grapheme", maxLength: 30 });
const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const wholeSeconds = fc.integer({ min: 0, max: 253402300799 });

const paymentRequest: fc.Arbitrary<PaymentRequest> = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  amount: uint64,
  merchantPseudonym: text,
  serviceId: text,
  deadline: wholeSeconds.map((seconds) => new Date(seconds * 1000)),
  revelationMaskRef: text,
  acceptsHumanityGate: fc.boolean(),
  claimSchemaRef: text,
});

const claim: fc.Arbitrary<Claim> = fc.record({
  subject: fc.oneof(bytes(32, 32), bytes(1952, 1952)),
  predicate: fc.constantFrom("pays" as const, "was_paid" as const),
  object: text,
  quantity: fc.record({ currency: fc.constantFrom(...CURRENCIES), amount: uint64 }),
  time: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  context: bytes(32, 32),
});

const paymentSignature: fc.Arbitrary<PaymentSignature> = fc.record(
  {
    paymentIntent: bytes(0, 200),
    starkProof: bytes(0, 64),
    signature: bytes(0, 100),
    humanityClaim: bytes(0, 40),
    delegationChain: fc.array(bytes(0, 20), { maxLength: 3 }),
  },
  { requiredKeys: ["paymentIntent", "starkProof", "signature"] },
);

describe("x402+cbor typed codecs", () => {
  it("property: decode(encode(x)) = x for PaymentRequest, claim, PaymentSignature, receipt and facilitator messages", () => {
    fc.assert(
      fc.property(paymentRequest, (value) => {
        expect(decodePaymentRequest(encodePaymentRequest(value))).toEqual(value);
      }),
    );
    fc.assert(
      fc.property(claim, (value) => {
        expect(decodeClaim(encodeClaim(value))).toEqual(value);
      }),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(paymentSignature, (value) => {
        expect(decodePaymentSignature(encodePaymentSignature(value))).toEqual(value);
      }),
    );
    fc.assert(
      fc.property(
        fc.record({
          claim: bytes(0, 80),
          salts: fc.array(bytes(16, 16), { minLength: 6, maxLength: 6 }),
          signature: bytes(0, 64),
          signer: bytes(0, 32),
        }),
        (value) => {
          expect(decodeSettlementReceipt(encodeSettlementReceipt(value))).toEqual(value);
        },
      ),
    );
    fc.assert(
      fc.property(fc.record({ paymentRequest: bytes(0, 80), paymentSignature: bytes(0, 80) }), (value) => {
        expect(decodeCborFacilitatorRequest(encodeCborFacilitatorRequest(value))).toEqual(value);
      }),
    );
    fc.assert(
      fc.property(
        fc.record({ isValid: fc.boolean(), invalidReason: text, payer: text }, { requiredKeys: ["isValid"] }),
        (value) => {
          expect(decodeCborVerifyResponse(encodeCborVerifyResponse(value))).toEqual(value);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.record(
          { success: fc.boolean(), receipt: bytes(0, 40), errorReason: text },
          { requiredKeys: ["success"] },
        ),
        (value) => {
          expect(decodeCborSettleResponse(encodeCborSettleResponse(value))).toEqual(value);
        },
      ),
    );
  });

  it("encodes a PaymentRequest with the seed's snake_case keys and a tag 0 deadline", () => {
    const request: PaymentRequest = {
      currency: "USDC",
      amount: 10_000n,
      merchantPseudonym: "merchant:demo",
      serviceId: "GET /api/quote",
      deadline: new Date("2026-11-23T14:00:00Z"),
      revelationMaskRef: "mask:v0.3:open-fields",
      acceptsHumanityGate: false,
      claimSchemaRef: "schema:v0.3:payment-intent",
    };
    const hex = Buffer.from(encodePaymentRequest(request)).toString("hex");
    expect(hex.startsWith("a8")).toBe(true);
    expect(hex).toContain(Buffer.from("merchant_pseudonym").toString("hex"));
    expect(hex).toContain("c074" + Buffer.from("2026-11-23T14:00:00Z").toString("hex"));
    expect(() => encodePaymentRequest({ ...request, deadline: new Date("2026-11-23T14:00:00.5Z") })).toThrow(
      CborError,
    );
  });

  const validRequest = new Map<string, CborValue>([
    ["currency", "USDC"],
    ["amount", 1],
    ["merchant_pseudonym", "m"],
    ["service_id", "s"],
    ["deadline", new CborTag(0, "2026-01-01T00:00:00Z")],
    ["revelation_mask_ref", "r"],
    ["accepts_humanity_gate", false],
    ["claim_schema_ref", "c"],
  ]);
  const variant = (change: (map: Map<string, CborValue>) => void): Uint8Array => {
    const copy = new Map(validRequest);
    change(copy);
    return encodeCanonical(copy);
  };

  it.each<[string, Uint8Array, CborError["problem"], string]>([
    ["an unknown key", variant((m) => m.set("extra", 1)), "unknown_key", "PaymentRequest"],
    ["a missing key", variant((m) => m.delete("deadline")), "missing_key", "PaymentRequest.deadline"],
    ["amount as text", variant((m) => m.set("amount", "1")), "wrong_type", "PaymentRequest.amount"],
    ["a negative amount", variant((m) => m.set("amount", -1)), "wrong_type", "PaymentRequest.amount"],
    [
      "an unknown currency",
      variant((m) => m.set("currency", "EUR")),
      "wrong_value",
      "PaymentRequest.currency",
    ],
    [
      "deadline as tag 1",
      variant((m) => m.set("deadline", new CborTag(1, 5))),
      "wrong_type",
      "PaymentRequest.deadline",
    ],
    [
      "humanity gate as 0",
      variant((m) => m.set("accepts_humanity_gate", 0)),
      "wrong_type",
      "PaymentRequest.accepts_humanity_gate",
    ],
    ["an array instead of a map", encodeCanonical([1]), "wrong_type", "PaymentRequest"],
  ])("a PaymentRequest with %s is refused, naming the field", (_name, input, problem, at) => {
    expect(() => decodePaymentRequest(input)).toThrow(expect.objectContaining({ problem, at }));
  });

  it.each<[string, CborValue, string]>([
    ["five parts", [new Uint8Array(32), "pays", "m", ["USDC", 1], new CborTag(1, 1)], "claim"],
    [
      "a short subject",
      [new Uint8Array(31), "pays", "m", ["USDC", 1], new CborTag(1, 1), new Uint8Array(32)],
      "claim.subject",
    ],
    [
      "another predicate",
      [new Uint8Array(32), "owes", "m", ["USDC", 1], new CborTag(1, 1), new Uint8Array(32)],
      "claim.predicate",
    ],
    [
      "time without tag 1",
      [new Uint8Array(32), "pays", "m", ["USDC", 1], 1, new Uint8Array(32)],
      "claim.time",
    ],
    [
      "a 31-byte context",
      [new Uint8Array(32), "pays", "m", ["USDC", 1], new CborTag(1, 1), new Uint8Array(31)],
      "claim.context",
    ],
    [
      "quantity in EUR",
      [new Uint8Array(32), "pays", "m", ["EUR", 1], new CborTag(1, 1), new Uint8Array(32)],
      "claim.quantity",
    ],
  ])("a claim with %s is refused", (_name, value, at) => {
    expect(() => decodeClaim(encodeCanonical(value))).toThrow(
      expect.objectContaining({ name: "CborError", at }),
    );
  });

  it("a PaymentSignature refuses unknown keys and a delegation chain that is not byte strings", () => {
    const base: Array<[string, CborValue]> = [
      ["payment_intent", new Uint8Array(1)],
      ["stark_proof", new Uint8Array(1)],
      ["signature", new Uint8Array(1)],
    ];
    expect(() => decodePaymentSignature(encodeCanonical(new Map([...base, ["tip", 1]])))).toThrow(
      expect.objectContaining({ problem: "unknown_key" }),
    );
    expect(() =>
      decodePaymentSignature(encodeCanonical(new Map([...base, ["delegation_chain", ["x"]]]))),
    ).toThrow(expect.objectContaining({ problem: "wrong_type", at: "PaymentSignature.delegation_chain" }));
  });
});

describe("x402+cbor signatures, stand-in proof and receipts", () => {
  const message = new TextEncoder().encode("the exact intent bytes");

  it.each(["ed25519", "ml-dsa-65"] as const)(
    "%s: signs, verifies, and refuses a changed message or key",
    (algorithm) => {
      const key = createSigningKey(algorithm, new Uint8Array(32).fill(7));
      const signature = key.sign(message);
      expect(signature.length).toBe(algorithm === "ed25519" ? 64 : 3309);
      expect(key.publicKey.length).toBe(algorithm === "ed25519" ? 32 : 1952);
      expect(verifySignature(key.publicKey, message, signature)).toBe(true);
      expect(verifySignature(key.publicKey, new Uint8Array([...message, 0]), signature)).toBe(false);
      const other = createSigningKey(algorithm);
      expect(verifySignature(other.publicKey, message, signature)).toBe(false);
      expect(createSigningKey(algorithm, new Uint8Array(32).fill(7)).publicKey).toEqual(key.publicKey);
    },
  );

  it("signature verification never throws on garbage", () => {
    fc.assert(
      fc.property(
        fc.oneof(bytes(32, 32), bytes(1952, 1952), bytes(0, 40)),
        bytes(0, 3400),
        (publicKey, signature) => {
          expect(verifySignature(publicKey, message, signature)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("the stand-in proof binds exactly the intent", () => {
    const proof = standInProof(message);
    expect(isStandInProof(proof, message)).toBe(true);
    expect(isStandInProof(proof, new Uint8Array([...message, 1]))).toBe(false);
    expect(isStandInProof(proof.subarray(1), message)).toBe(false);
  });

  it("verifyReceipt accepts the facilitator's receipt and refuses another signer, a changed claim or an intent", () => {
    const facilitator = createSigningKey("ed25519");
    const receiptClaim = encodeClaim({
      subject: new Uint8Array(32).fill(1),
      predicate: "was_paid",
      object: "merchant:demo",
      quantity: { currency: "USDC", amount: 10n },
      time: 1_800_000_000,
      context: new Uint8Array(32).fill(2),
    });
    const receipt = signReceipt(facilitator, decodeClaim(receiptClaim));
    const encoded = encodeSettlementReceipt(receipt);
    const verdict = verifyReceipt(Buffer.from(encoded).toString("base64"), facilitator.publicKey);
    expect(verdict).toEqual({ valid: true, claim: decodeClaim(receiptClaim) });
    expect(verifyReceipt(encoded, createSigningKey("ed25519").publicKey)).toEqual({
      valid: false,
      reason: "signed by another key than the facilitator's",
    });
    const changed = new Uint8Array(receiptClaim);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    expect(verifyReceipt({ ...receipt, claim: changed }, facilitator.publicKey)).toEqual({
      valid: false,
      reason: "the signature does not match the receipt's commitments",
    });
    const intent = signReceipt(facilitator, { ...decodeClaim(receiptClaim), predicate: "pays" });
    expect(verifyReceipt(intent, facilitator.publicKey)).toEqual({
      valid: false,
      reason: 'the claim is not a "was_paid" receipt',
    });
    expect(verifyReceipt("%%%", facilitator.publicKey).valid).toBe(false);
  });
});
