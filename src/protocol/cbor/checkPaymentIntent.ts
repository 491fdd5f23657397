import type { QuantifiedClaim } from "./Claim.js";
import type { PaymentRequest } from "./PaymentRequest.js";
import { PREDICATE_PAYS } from "./profile.js";

export type IntentMismatch = {
  /** `payment_mismatch`: the intent pays something else. */
  code: "payment_mismatch";
  field: string;
  expected: string;
  received: string;
};

/**
 * Does a decoded intent pay exactly what `request` asks? Field by field: predicate, merchant, currency,
 * amount. The context digest is the caller's to check, and the signature its signer backend's
 * (src/signers/SignerRegistry.ts).
 */
export function checkPaymentIntent(
  request: PaymentRequest,
  claim: Pick<QuantifiedClaim, "predicate" | "object" | "quantity">,
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
  return undefined;
}
