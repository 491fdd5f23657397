import type { CborRouteOffer } from "../../pricing/resolveCborOffer.js";
import { checkIntentForm, masksIntent } from "../../protocol/cbor/masks/checkIntentForm.js";
import { hidesSubject } from "../../protocol/cbor/masks/maskPadding.js";
import type { WireIntent } from "../../protocol/cbor/masks/WireIntent.js";
import type { PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { verifySignature } from "../../protocol/cbor/signatures.js";
import { GatewayError } from "../../protocol/errors.js";

/**
 * The route's revelation mask, as far as the gateway can check it: each intent part in the form its
 * tag says (a part the mask hides that comes in clear is refused, and the reverse), openings exactly
 * with a Commit part or a hidden subject, a signature in clear exactly when the subject is in clear, no delegation chain with a masked intent (v0.3). A masked intent is a
 * ServiceAuthSigner key's: with the subject in clear its signature is checked here (`true`); with the
 * subject hidden only the facilitator, who opens it, can (`false`). An unmasked intent: `undefined`,
 * the signer backends check it. Throws the refusal (402) before anything is reserved.
 */
export function enforceRevelationMask(
  offer: CborRouteOffer,
  wire: WireIntent,
  payment: PaymentSignature,
): boolean | undefined {
  const mask = offer.revelationMask;
  const violation = checkIntentForm(mask, wire);
  if (violation !== undefined) {
    const { part, expected, received } = violation;
    throw refuse(
      received === "Open"
        ? `the route's revelation mask hides the intent's ${part} (${expected}), it came in clear`
        : `the intent's ${part} is ${received}, the route's revelation mask says ${expected}`,
      { field: `payment_intent.${part}`, expected, received },
    );
  }
  const hidden = hidesSubject(mask);
  const sealed = hidden || Object.values(mask.intent).includes("Commit");
  if (sealed !== (payment.openings !== undefined)) {
    throw refuse(
      sealed ? "the sealed openings are missing" : "openings without a Commit part or hidden subject",
      {
        field: "openings",
      },
    );
  }
  // A hidden payer's signature travels sealed in the openings: one in clear would name the payer.
  if (hidden === (payment.signature !== undefined)) {
    throw refuse(
      hidden
        ? "the route's revelation mask hides the subject: the signature goes sealed in the openings, never in clear"
        : "the signature is missing",
      { field: "signature" },
    );
  }
  if (!masksIntent(mask)) return undefined;
  if (!offer.acceptedSigners.includes("ServiceAuthSigner")) {
    throw new GatewayError(
      "signer_not_accepted",
      "a masked intent is a ServiceAuthSigner's, which this route does not accept",
      {
        details: { backend: "ServiceAuthSigner", accepted: [...offer.acceptedSigners] },
      },
    );
  }
  if (payment.delegationChain !== undefined) {
    throw refuse("a masked intent carries no delegation chain (v0.3)", { field: "delegation_chain" });
  }
  const { subject, signer } = wire.view;
  if (subject === undefined) return false;
  if (signer !== undefined) {
    throw refuse("a masked intent is signed by a ServiceAuthSigner key", { field: "payment_intent.subject" });
  }
  if (!verifySignature(subject, payment.paymentIntent, payment.signature as Uint8Array)) {
    throw new GatewayError("verification_failed", "the signature is not the intent subject's", {
      details: { field: "signature", backend: "ServiceAuthSigner" },
    });
  }
  return true;
}

function refuse(message: string, details: Record<string, string>): GatewayError {
  return new GatewayError("revelation_mask_violation", message, { details });
}
