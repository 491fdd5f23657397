import type { CborRouteOffer } from "../../pricing/resolveCborOffer.js";
import { checkHumanityClaim } from "../../protocol/cbor/checkHumanityClaim.js";
import type { Claim } from "../../protocol/cbor/Claim.js";
import type { PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { GatewayError } from "../../protocol/errors.js";

/**
 * The humanity gate of a CBOR route: when its PaymentRequest says `accepts_humanity_gate`, the payment
 * must carry a humanity claim about the intent's subject from an issuer the route trusts; throws the
 * refusal (a 402 with its own code) before anything is reserved or sent to the facilitator. When the
 * gate is off, a claim the payer sent anyway is ignored.
 */
export function enforceHumanityGate(
  offer: CborRouteOffer,
  payment: PaymentSignature,
  intent: Pick<Claim, "subject">,
  clock: { now: () => number; skewSeconds: number },
): void {
  if (!offer.acceptsHumanityGate) return;
  const refusal = checkHumanityClaim({
    humanityClaim: payment.humanityClaim,
    subject: intent.subject,
    trustedIssuers: offer.humanityIssuers,
    nowSeconds: Math.floor(clock.now() / 1000),
    skewSeconds: clock.skewSeconds,
  });
  if (refusal !== undefined)
    throw new GatewayError(refusal.code, refusal.message, { details: refusal.details });
}
