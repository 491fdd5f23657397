import type { ResponseWriter, WrittenHeaders } from "../responses/ResponsePort.js";
import { base64OfBytes } from "../../common/bytes.js";
import type { GatewayError } from "../../protocol/errors.js";
import { PAYMENT_REQUIRED, PAYMENT_RESPONSE } from "../../protocol/headers.js";
import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";
import { printableAscii } from "../../protocol/printableAscii.js";
import { keepPrivate, writeUncachedAnswer } from "../responses/respond.js";

/** Response header naming why a CBOR 402 refused a payment (our profile: the body must stay the offer). */
export const X402_ERROR = "x402-error";
/** Response header with the refusal's one-line reason beside `X402-Error` (e.g. the offer's deadline passed). */
export const X402_ERROR_REASON = "x402-error-reason";
/**
 * Response header of a CBOR 402 whose route has a revelation mask other than the all-Open default: the
 * base64 of the mask document its `revelation_mask_ref` names by SHA-256 (docs/cbor.md, Revelation masks).
 */
export const X402_REVELATION_MASK = "x402-revelation-mask";
/** Longest reason put in a header, in characters. */
const MAX_REASON_CHARS = 256;

/**
 * The CBOR 402: `PAYMENT-REQUIRED` is the base64 of the PaymentRequest, the body the same bytes as
 * `application/x402+cbor`; a refused payment's code goes in `X402-Error`, its reason in `X402-Error-Reason`;
 * a route's revelation mask document in `X402-Revelation-Mask`.
 */
export function sendCborPaymentRequired(
  res: ResponseWriter,
  offer: Uint8Array,
  maskDocument: Uint8Array | undefined,
  error?: GatewayError,
): void {
  const headers: WrittenHeaders = { [PAYMENT_REQUIRED]: base64OfBytes(offer) };
  if (maskDocument !== undefined) headers[X402_REVELATION_MASK] = base64OfBytes(maskDocument);
  if (error !== undefined && error.code !== "payment_required") {
    headers[X402_ERROR] = error.code;
    headers[X402_ERROR_REASON] = printableAscii(error.message, MAX_REASON_CHARS);
  }
  writeUncachedAnswer(res, 402, headers, CBOR_MEDIA_TYPE, offer);
}

/** Mark a response paid in CBOR: the signed receipt, and no shared caching. */
export function markCborPaid(res: ResponseWriter, receipt: Uint8Array): void {
  res.setHeader(PAYMENT_RESPONSE, base64OfBytes(receipt));
  keepPrivate(res);
}
