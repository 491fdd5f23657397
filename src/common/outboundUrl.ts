import { z } from "zod/v4";
import { isHttpsOrLoopbackUrl } from "./isHttpsOrLoopbackUrl.js";

/** What a refused outbound URL is told, wherever the key sits. */
export const OUTBOUND_URL_MESSAGE = "expected an https:// URL (plain http is allowed only on loopback)";

/**
 * A URL the paywall calls out to (facilitator, RPC node; upstreams add their own opt-in): `https://`, or `http://` on loopback
 * only. One schema piece, so `x402()` options and the gateway config refuse the same URLs.
 */
export function outboundUrl(what: string) {
  return z
    .url({ error: `expected ${what}` })
    .refine(isHttpsOrLoopbackUrl, { error: OUTBOUND_URL_MESSAGE, abort: true });
}
