import { decodeBase64 } from "../decodeBase64.js";
import type { QuantifiedClaim } from "./Claim.js";
import { PREDICATE_WAS_PAID } from "./profile.js";
import { receiptSignatureProblem } from "./receiptCommitments.js";
import { decodeSettlementReceipt, receiptCommitments, type SettlementReceipt } from "./SettlementReceipt.js";

export type ReceiptVerdict = { valid: true; claim: QuantifiedClaim } | { valid: false; reason: string };

/**
 * Check a SettlementReceipt offline against the facilitator's published key: the claim a canonical
 * six-part `was_paid` claim, six 16-byte salts, the signer `facilitatorKey`, and the signature its
 * over the salted commitments of the six parts. Takes the decoded receipt, its CBOR bytes, or the
 * `PAYMENT-RESPONSE` header value (base64). Never throws for bad input.
 */
export function verifyReceipt(
  receipt: SettlementReceipt | Uint8Array | string,
  facilitatorKey: Uint8Array,
): ReceiptVerdict {
  let decoded: ReturnType<typeof receiptCommitments>;
  let signed: SettlementReceipt;
  try {
    const bytes = typeof receipt === "string" ? decodeBase64(receipt) : receipt;
    signed = bytes instanceof Uint8Array ? decodeSettlementReceipt(bytes) : bytes;
    decoded = receiptCommitments(signed);
  } catch (error) {
    return { valid: false, reason: `malformed receipt: ${(error as Error).message}` };
  }
  const problem = receiptSignatureProblem(
    decoded.commitments,
    signed.signature,
    signed.signer,
    facilitatorKey,
  );
  if (problem !== undefined) return { valid: false, reason: problem };
  if (decoded.claim.predicate !== PREDICATE_WAS_PAID || decoded.claim.quantity === null) {
    return { valid: false, reason: 'the claim is not a "was_paid" receipt' };
  }
  return { valid: true, claim: decoded.claim as QuantifiedClaim };
}
