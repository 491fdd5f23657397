import type { QuantifiedClaim } from "./Claim.js";
import { PREDICATE_WAS_PAID } from "./profile.js";
import type { SettlementReceipt } from "./SettlementReceipt.js";
import { openSignedClaim } from "./SignedClaim.js";

export type ReceiptVerdict = { valid: true; claim: QuantifiedClaim } | { valid: false; reason: string };

/**
 * Check a SettlementReceipt offline: signed by `facilitatorKey` over the exact claim bytes, and the
 * claim is a canonical six-part `was_paid` claim. Takes the decoded receipt, its CBOR bytes, or the
 * `PAYMENT-RESPONSE` header value (base64).
 */
export function verifyReceipt(
  receipt: SettlementReceipt | Uint8Array | string,
  facilitatorKey: Uint8Array,
): ReceiptVerdict {
  const verdict = openSignedClaim(receipt, {
    predicate: PREDICATE_WAS_PAID,
    trustedSigners: [facilitatorKey],
  });
  if (!verdict.valid) {
    const reason =
      verdict.problem === "untrusted_signer"
        ? "signed by another key than the facilitator's"
        : verdict.problem === "wrong_predicate"
          ? 'the claim is not a "was_paid" receipt'
          : verdict.problem === "malformed"
            ? verdict.reason.replace("malformed signed claim", "malformed receipt")
            : verdict.reason;
    return { valid: false, reason };
  }
  return { valid: true, claim: verdict.claim as QuantifiedClaim };
}
