import { acceptWeights, weightOf } from "./acceptWeights.js";
import { CBOR_MEDIA_TYPE } from "./cbor/profile.js";
import type { PaymentFormat } from "./negotiatePaymentFormat.js";

/**
 * The format of a 402 offer, from the request's `Accept`: CBOR when the client names
 * `application/x402+cbor` with a q-value above zero and at least that of JSON (`application/json`,
 * else `application/*`, else `*\/*`); JSON otherwise, as any x402 V2 client expects. Never an error:
 * an unpaid request is not refused for what it accepts.
 */
export function preferredOfferFormat(accept: string | undefined): PaymentFormat {
  const weights = acceptWeights(accept);
  const cbor = weights.get(CBOR_MEDIA_TYPE) ?? 0;
  return cbor > 0 && cbor >= weightOf(weights, "application/json") ? "cbor" : "json";
}
