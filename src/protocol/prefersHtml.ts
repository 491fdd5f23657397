import { acceptWeights, weightOf } from "./acceptWeights.js";
import { CBOR_MEDIA_TYPE } from "./cbor/profile.js";

/**
 * Whether a client's `Accept` prefers a web page to an x402 offer: `text/html` (or `text/*`, `*\/*`) with a
 * q-value above zero and strictly above both JSON's (`application/json`, `application/*`, `*\/*`) and
 * CBOR's (`application/x402+cbor`, named). A tie, `*\/*` alone, or no `Accept` keeps the API answer.
 */
export function prefersHtml(accept: string | undefined): boolean {
  // Most API clients name neither, or send `*/*` alone (a tie): no parse on their path.
  if (accept === undefined || accept === "*/*" || !/html|\*/i.test(accept)) return false;
  const weights = acceptWeights(accept);
  const html = weightOf(weights, "text/html");
  const api = Math.max(weightOf(weights, "application/json"), weights.get(CBOR_MEDIA_TYPE) ?? 0);
  return html > 0 && html > api;
}
