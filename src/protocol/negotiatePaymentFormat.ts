import { CBOR_MEDIA_TYPE } from "./cbor/profile.js";

/** Wire formats of a paid exchange this gateway speaks: x402 V2 base64 JSON, and `application/x402+cbor`. */
export type PaymentFormat = "json" | "cbor";

export type Negotiated = { ok: true; format: PaymentFormat } | { ok: false; mediaType: string };

/**
 * Pick the payment wire format of a request from its `Content-Type`: `application/x402+cbor` is
 * CBOR; another `application/x402+…` is a format this gateway does not speak (415); anything else
 * is the x402 V2 default, base64 JSON headers.
 */
export function negotiatePaymentFormat(contentType: string | undefined): Negotiated {
  if (contentType === undefined) return JSON_FORMAT;
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase();
  if (mediaType === CBOR_MEDIA_TYPE) return CBOR_FORMAT;
  if (mediaType?.startsWith("application/x402+")) return { ok: false, mediaType };
  return JSON_FORMAT;
}

/** The two answers that carry nothing of the request: shared (and frozen, since they are). */
const JSON_FORMAT: Negotiated = Object.freeze({ ok: true, format: "json" });
const CBOR_FORMAT: Negotiated = Object.freeze({ ok: true, format: "cbor" });
