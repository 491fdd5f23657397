import type { ServerResponse } from "node:http";
import type { GatewayError } from "../protocol/errors.js";
import { PAYMENT_REQUIRED, PAYMENT_RESPONSE } from "../protocol/headers.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";
import { addVary, keepPrivate } from "./respond.js";

/** Response header naming why a CBOR 402 refused a payment (our profile: the body must stay the offer). */
export const X402_ERROR = "x402-error";

/**
 * The CBOR 402: `PAYMENT-REQUIRED` is the base64 of the PaymentRequest, the body the same bytes as
 * `application/x402+cbor`; a refused payment's code goes in `X402-Error`.
 */
export function sendCborPaymentRequired(res: ServerResponse, offer: Uint8Array, error?: GatewayError): void {
  res.statusCode = 402;
  res.setHeader(PAYMENT_REQUIRED, Buffer.from(offer).toString("base64"));
  if (error !== undefined && error.code !== "payment_required") res.setHeader(X402_ERROR, error.code);
  res.setHeader("Cache-Control", "no-store");
  addVary(res, "Accept");
  res.setHeader("Content-Type", CBOR_MEDIA_TYPE);
  res.setHeader("Content-Length", offer.length);
  res.end(Buffer.from(offer));
}

/** Mark a response paid in CBOR: the signed receipt, and no shared caching. */
export function markCborPaid(res: ServerResponse, receipt: Uint8Array): void {
  res.setHeader(PAYMENT_RESPONSE, Buffer.from(receipt).toString("base64"));
  keepPrivate(res);
}
