/** Wire formats of a paid exchange this gateway speaks. CBOR (`application/x402+cbor`) comes with its own issue. */
export type PaymentFormat = "json";

export type Negotiated = { ok: true; format: PaymentFormat } | { ok: false; mediaType: string };

/**
 * Pick the payment wire format of a request. A request whose `Content-Type` names an x402 payment
 * format (`application/x402+…`) this gateway does not speak is refused (415); anything else is the
 * x402 V2 default, base64 JSON headers.
 */
export function negotiatePaymentFormat(contentType: string | undefined): Negotiated {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  if (mediaType?.startsWith("application/x402+")) return { ok: false, mediaType };
  return { ok: true, format: "json" };
}
