import { CBOR_MEDIA_TYPE } from "./cbor/profile.js";
import type { PaymentFormat } from "./negotiatePaymentFormat.js";

/**
 * The format of a 402 offer, from the request's `Accept`: CBOR when the client names
 * `application/x402+cbor` with a q-value above zero and at least that of JSON (`application/json`,
 * else `application/*`, else `*\/*`); JSON otherwise, as any x402 V2 client expects. Never an error:
 * an unpaid request is not refused for what it accepts.
 */
export function preferredOfferFormat(accept: string | undefined): PaymentFormat {
  if (accept === undefined) return "json";
  const weights = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";");
    const mediaRange = range?.trim().toLowerCase();
    if (!mediaRange) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=").map((text) => text.trim().toLowerCase());
      if (name === "q") q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? "") ? Number(value) : 0;
    }
    weights.set(mediaRange, Math.max(weights.get(mediaRange) ?? 0, q));
  }
  const cbor = weights.get(CBOR_MEDIA_TYPE) ?? 0;
  const json = weights.get("application/json") ?? weights.get("application/*") ?? weights.get("*/*") ?? 0;
  return cbor > 0 && cbor >= json ? "cbor" : "json";
}
