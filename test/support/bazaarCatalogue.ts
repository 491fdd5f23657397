import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { extractDiscoveryInfo } from "@x402/extensions/bazaar";

/**
 * What a facilitator catalogues from a payment for `offer` (its first option), with the official package's
 * own extraction: a client echoes the offer's extensions in its payload.
 */
export function catalogue(offer: PaymentRequired) {
  const accepted = offer.accepts[0] as PaymentRequirements;
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: offer.resource,
    accepted,
    payload: {},
    extensions: offer.extensions,
  };
  return extractDiscoveryInfo(payload, accepted);
}
