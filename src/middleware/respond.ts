import type { ServerResponse } from "node:http";
import { encodeBase64Json } from "../protocol/base64Json.js";
import type { GatewayError } from "../protocol/errors.js";
import { PAYMENT_REQUIRED, PAYMENT_RESPONSE } from "../protocol/headers.js";
import type {
  PaymentRequired,
  PaymentRequirements,
  ResourceInfo,
  SettleResponse,
} from "../protocol/schemas.js";

/** What a route offers on a 402. */
export interface Offer {
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown> | undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/**
 * Answer with a 402: the `PaymentRequired` object (its `error` is the code) in `PAYMENT-REQUIRED`,
 * and the same object plus `message` and `details` as the body, so curl shows the offer.
 */
export function sendPaymentRequired(
  res: ServerResponse,
  error: GatewayError,
  offer: Offer,
  settlement?: SettleResponse,
): void {
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    error: error.code,
    resource: offer.resource,
    accepts: offer.accepts,
  };
  if (offer.extensions && Object.keys(offer.extensions).length > 0)
    paymentRequired.extensions = offer.extensions;
  res.setHeader(PAYMENT_REQUIRED, encodeBase64Json(paymentRequired));
  if (settlement) res.setHeader(PAYMENT_RESPONSE, encodeBase64Json(settlement));
  res.setHeader("Cache-Control", "no-store");
  addVary(res, "Accept");
  sendJson(res, 402, { ...paymentRequired, message: error.message, details: error.details });
}

/** Add a field to `Vary`, keeping what earlier middleware (CORS's `Origin`) put there. */
export function addVary(res: ServerResponse, field: string): void {
  const current = res.getHeader("Vary");
  const fields = (Array.isArray(current) ? current.join(",") : String(current ?? ""))
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  if (!fields.some((value) => value.toLowerCase() === field.toLowerCase())) fields.push(field);
  res.setHeader("Vary", fields.join(", "));
}

/** Answer with the one flat error body `{ error, message, details }`. */
export function sendError(res: ServerResponse, error: GatewayError): void {
  if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  res.setHeader("Cache-Control", "no-store");
  sendJson(res, error.status, error.toBody());
}

/** Mark a paid response: the receipt, and no shared caching. */
export function markPaid(res: ServerResponse, settlement: SettleResponse): void {
  res.setHeader(PAYMENT_RESPONSE, encodeBase64Json(settlement));
  keepPrivate(res);
}

/** A paid answer is for its payer only: no shared caching, unless the handler said stricter. */
export function keepPrivate(res: ServerResponse): void {
  const cacheControl = res.getHeader("Cache-Control");
  if (typeof cacheControl !== "string" || !/\b(private|no-store)\b/i.test(cacheControl)) {
    res.setHeader("Cache-Control", "private");
  }
}
