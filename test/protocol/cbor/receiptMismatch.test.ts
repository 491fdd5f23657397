import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLAIM_PARTS, type Claim, type ClaimPart } from "../../../src/protocol/cbor/Claim.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import { receiptMismatch } from "../../../src/protocol/cbor/receiptMismatch.js";
import { encodeRestrictedReceipt } from "../../../src/protocol/cbor/RestrictedReceipt.js";
import { restrictReceipt } from "../../../src/protocol/cbor/restrictReceipt.js";
import { encodeSettlementReceipt, signReceipt } from "../../../src/protocol/cbor/SettlementReceipt.js";
import { createSigningKey } from "../../../src/protocol/cbor/signatures.js";

const facilitatorKey = createSigningKey("ed25519");
const payer = createSigningKey("ed25519");
const intentDigest = new Uint8Array(createHash("sha256").update("this intent").digest());
const otherDigest = new Uint8Array(createHash("sha256").update("another intent").digest());
const quantity = { currency: "USDC", amount: 10_000n } as const;

const receiptClaim: Claim = {
  subject: payer.publicKey,
  predicate: "was_paid",
  object: "merchant:receipt",
  quantity,
  time: 1_800_000_000,
  context: intentDigest,
};

const full = (claim: Partial<Claim> = {}) =>
  encodeSettlementReceipt(signReceipt(facilitatorKey, { ...receiptClaim, ...claim }));
const restricted = (reveal: ClaimPart[], claim: Partial<Claim> = {}) =>
  encodeRestrictedReceipt(
    restrictReceipt(signReceipt(facilitatorKey, { ...receiptClaim, ...claim }), reveal).receipt,
  );
const allBut = (hidden: ClaimPart) => CLAIM_PARTS.filter((part) => part !== hidden);

describe("receiptMismatch: is a facilitator's receipt about this payment?", () => {
  it.each<[string, Uint8Array]>([
    ["a full receipt of this intent", full()],
    ["a restricted one hiding the payer", restricted(allBut("subject"))],
    ["one hiding the merchant and the time", restricted(["subject", "predicate", "quantity", "context"])],
  ])("%s: yes", (_name, receipt) => {
    expect(receiptMismatch(receipt, intentDigest, quantity)).toBeUndefined();
  });

  it.each<[string, Uint8Array, RegExp]>([
    ["another intent's receipt", full({ context: otherDigest }), /context/],
    ["another intent's, restricted", restricted(allBut("subject"), { context: otherDigest }), /context/],
    ["another amount", full({ quantity: { currency: "USDC", amount: 9_999n } }), /quantity/],
    ["another currency", full({ quantity: { currency: "STRK", amount: 10_000n } }), /quantity/],
    ["a revocation, not was_paid", full({ predicate: "revokes" }), /predicate/],
    ["the context hidden", restricted(allBut("context")), /context is hidden/],
    ["the quantity hidden", restricted(allBut("quantity")), /quantity is hidden/],
    ["the predicate hidden", restricted(allBut("predicate")), /predicate is hidden/],
    ["empty bytes", new Uint8Array(0), /not a receipt/],
    ["a map that is neither receipt", encodeCanonical(new Map([["claim", 1]])), /not a receipt/],
  ])("%s: no", (_name, receipt, why) => {
    expect(receiptMismatch(receipt, intentDigest, quantity)).toMatch(why);
  });

  it("the digest it is compared with is 32 bytes: a shorter one never matches", () => {
    expect(receiptMismatch(full(), intentDigest.subarray(0, 31), quantity)).toMatch(/context/);
  });

  it("property: any bytes give a reason or a match, never a throw", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        expect(() => receiptMismatch(bytes, intentDigest, quantity)).not.toThrow();
        expect(receiptMismatch(bytes, intentDigest, quantity)).toMatch(/^not a receipt/);
      }),
    );
  });
});
