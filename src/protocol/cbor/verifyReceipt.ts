import { timingSafeEqual } from "node:crypto";
import { decodeBase64 } from "../decodeBase64.js";
import { decodeClaim, type Claim } from "./Claim.js";
import { PREDICATE_WAS_PAID } from "./profile.js";
import { decodeSettlementReceipt, type SettlementReceipt } from "./SettlementReceipt.js";
import { verifySignature } from "./signatures.js";

export type ReceiptVerdict = { valid: true; claim: Claim } | { valid: false; reason: string };

/**
 * Check a SettlementReceipt offline: signed by `facilitatorKey` over the exact claim bytes, and the
 * claim is a canonical six-part `was_paid` claim. Takes the decoded receipt, its CBOR bytes, or the
 * `PAYMENT-RESPONSE` header value (base64).
 */
export function verifyReceipt(
  receipt: SettlementReceipt | Uint8Array | string,
  facilitatorKey: Uint8Array,
): ReceiptVerdict {
  let decoded: SettlementReceipt;
  let claim: Claim;
  try {
    const bytes = typeof receipt === "string" ? decodeBase64(receipt) : receipt;
    decoded = bytes instanceof Uint8Array ? decodeSettlementReceipt(bytes) : bytes;
    claim = decodeClaim(decoded.claim);
  } catch (error) {
    return { valid: false, reason: `malformed receipt: ${(error as Error).message}` };
  }
  if (decoded.signer.length !== facilitatorKey.length || !timingSafeEqual(decoded.signer, facilitatorKey)) {
    return { valid: false, reason: "signed by another key than the facilitator's" };
  }
  if (!verifySignature(facilitatorKey, decoded.claim, decoded.signature)) {
    return { valid: false, reason: "the signature does not match the claim" };
  }
  if (claim.predicate !== PREDICATE_WAS_PAID)
    return { valid: false, reason: 'the claim is not a "was_paid" receipt' };
  return { valid: true, claim };
}
