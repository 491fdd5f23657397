import { CBOR_MEDIA_TYPE } from "./cbor/profile.js";
import { parseMediaType } from "./parseMediaType.js";
import { printableAscii } from "./printableAscii.js";

/** Wire formats of a paid exchange this gateway speaks: x402 V2 base64 JSON, and `application/x402+cbor`. */
export type PaymentFormat = "json" | "cbor";

export type Negotiated = { ok: true; format: PaymentFormat } | { ok: false; mediaType: string };

const X402 = /x402/i;

/** How much of an unreadable `Content-Type` a refusal repeats. */
const MAX_ECHOED_CHARS = 64;

/**
 * Pick the payment wire format of a request from its `Content-Type`, read strictly (RFC 9110: one media
 * type, parameters allowed, case-insensitive names): `application/x402+cbor` is CBOR; another
 * `application/x402…` type — or a value that starts like one but is not a well-formed media type — is a
 * format this gateway does not speak (415); anything else is the x402 V2 default, base64 JSON headers.
 */
export function negotiatePaymentFormat(contentType: string | undefined): Negotiated {
  // Every type this decides on names x402: anything else is JSON without parsing (the common case).
  if (contentType === undefined || !X402.test(contentType)) return JSON_FORMAT;
  const parsed = parseMediaType(contentType);
  if (parsed !== undefined) {
    if (parsed.essence === CBOR_MEDIA_TYPE) return CBOR_FORMAT;
    if (parsed.type === "application" && parsed.subtype.startsWith("x402")) {
      return { ok: false, mediaType: printableAscii(parsed.essence, MAX_ECHOED_CHARS) };
    }
    return JSON_FORMAT;
  }
  const start = contentType.trimStart().toLowerCase();
  if (!start.startsWith("application/x402")) return JSON_FORMAT;
  return { ok: false, mediaType: printableAscii(contentType.trim(), MAX_ECHOED_CHARS) };
}

/** The two answers that carry nothing of the request: shared (and frozen, since they are). */
const JSON_FORMAT: Negotiated = Object.freeze({ ok: true, format: "json" });
const CBOR_FORMAT: Negotiated = Object.freeze({ ok: true, format: "cbor" });
