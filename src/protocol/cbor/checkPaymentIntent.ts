import type { QuantifiedClaim } from "./Claim.js";
import type { PaymentRequest } from "./PaymentRequest.js";
import type { PaymentSignature } from "./PaymentSignature.js";
import { PREDICATE_PAYS } from "./profile.js";
import { verifySignature } from "./signatures.js";

export type IntentMismatch = {
  /** `payment_mismatch`: the intent pays something else; `verification_failed`: the signature is not the subject's. */
  code: "payment_mismatch" | "verification_failed";
  field: string;
  expected: string;
  received: string;
};

/**
 * Does a decoded intent pay exactly what `request` asks, signed by its subject over the exact
 * `payment_intent` bytes? Field by field: predicate, merchant, currency, amount, then the signature
 * (Ed25519 or ML-DSA-65, by the subject key's length). The context digest is the caller's to check.
 */
export function checkPaymentIntent(
  request: PaymentRequest,
  claim: QuantifiedClaim,
  payment: PaymentSignature,
): IntentMismatch | undefined {
  const compare: Array<[string, string, string]> = [
    ["payment_intent.predicate", PREDICATE_PAYS, claim.predicate],
    ["payment_intent.object", request.merchantPseudonym, claim.object],
    ["payment_intent.quantity.currency", request.currency, claim.quantity.currency],
    ["payment_intent.quantity.amount", request.amount.toString(), claim.quantity.amount.toString()],
  ];
  for (const [field, expected, received] of compare) {
    if (expected !== received) return { code: "payment_mismatch", field, expected, received };
  }
  if (!verifySignature(claim.subject, payment.paymentIntent, payment.signature)) {
    return {
      code: "verification_failed",
      field: "signature",
      expected: "the subject key's signature over payment_intent",
      received: `${payment.signature.length} bytes that do not verify`,
    };
  }
  return undefined;
}
