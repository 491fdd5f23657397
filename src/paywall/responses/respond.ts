import { base64OfText, utf8ByteLength } from "../../common/bytes.js";
import { encodeBase64Json } from "../../protocol/base64Json.js";
import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";
import { encodeErrorBody } from "../../protocol/cbor/ErrorBody.js";
import type { PaymentFormat } from "../../protocol/negotiatePaymentFormat.js";
import { asksForCbor } from "../wires/cborRouting.js";
import type { GatewayError } from "../../protocol/errors.js";
import { PAYMENT_REQUIRED, PAYMENT_RESPONSE } from "../../protocol/headers.js";
import type { PaymentRequirements, ResourceInfo, SettleResponse } from "../../protocol/schemas.js";
import type { ResponseWriter, WrittenHeaders } from "./ResponsePort.js";

/** What a route offers on a 402. */
export interface Offer {
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown> | undefined;
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Send one of the flow's own answers whole: the status and every header in one `writeHead`, then the body.
 * In Node this costs far less than a `setHeader` per header (a 402 inside Express: 15 % less CPU, measured in
 * docs/benchmarks.md); headers set earlier (CORS's) stay, and a name given here wins, as with `setHeader`.
 */
function writeAnswer(
  res: ResponseWriter,
  status: number,
  headers: WrittenHeaders,
  body: string | Uint8Array,
): void {
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * Send an answer of the flow's own that no cache may keep and that varies with `Accept` (the 402s and the
 * refusals): `headers` plus `Cache-Control`, `Vary` (merged), the type and the length (`bodyBytes` when the
 * caller has it already), written whole.
 */
export function writeUncachedAnswer(
  res: ResponseWriter,
  status: number,
  headers: WrittenHeaders,
  contentType: string,
  body: string | Uint8Array,
  bodyBytes: number = typeof body === "string" ? utf8ByteLength(body) : body.length,
): void {
  headers["Cache-Control"] = "no-store";
  headers["Vary"] = varyWith(res, "Accept");
  headers["Content-Type"] = contentType;
  headers["Content-Length"] = bodyBytes;
  writeAnswer(res, status, headers, body);
}

/** Answer `status` with `body` as JSON (a HEAD request gets the headers only: Node drops its body). */
export function sendJson(res: ResponseWriter, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  writeAnswer(
    res,
    status,
    { "Content-Type": JSON_CONTENT_TYPE, "Content-Length": utf8ByteLength(text) },
    text,
  );
}

/** A 402 as it goes on the wire: the `PAYMENT-REQUIRED` header value and the JSON body. */
export interface EncodedPaymentRequired {
  header: string;
  body: string;
  bodyBytes: number;
}

/** A route's payment options as JSON: compiled once at start-up and never changed, so written once. */
const acceptsJson = new WeakMap<readonly PaymentRequirements[], string>();

/**
 * The `PaymentRequired` object (its `error` is the code) base64 JSON for `PAYMENT-REQUIRED`, and the same
 * object plus `message` and `details` as the body: the bytes `JSON.stringify` writes, from parts.
 */
export function encodePaymentRequired(error: GatewayError, offer: Offer): EncodedPaymentRequired {
  let accepts = acceptsJson.get(offer.accepts);
  if (accepts === undefined) {
    accepts = JSON.stringify(offer.accepts);
    acceptsJson.set(offer.accepts, accepts);
  }
  const extensions =
    offer.extensions && Object.keys(offer.extensions).length > 0
      ? `,"extensions":${JSON.stringify(offer.extensions)}`
      : "";
  const head = `{"x402Version":2,"error":${JSON.stringify(error.code)},"resource":${JSON.stringify(offer.resource)},"accepts":${accepts}${extensions}`;
  const details = JSON.stringify(error.details) as string | undefined;
  const body = `${head},"message":${JSON.stringify(error.message)}${details === undefined ? "" : `,"details":${details}`}}`;
  return {
    header: base64OfText(`${head}}`),
    body,
    bodyBytes: utf8ByteLength(body),
  };
}

/**
 * Answer with a 402: the `PaymentRequired` object (its `error` is the code) in `PAYMENT-REQUIRED`,
 * and the same object plus `message` and `details` as the body, so curl shows the offer.
 */
export function sendPaymentRequired(
  res: ResponseWriter,
  error: GatewayError,
  offer: Offer,
  settlement?: SettleResponse,
): void {
  sendEncodedPaymentRequired(res, encodePaymentRequired(error, offer), settlement);
}

/** {@link sendPaymentRequired} with the 402 already encoded. */
export function sendEncodedPaymentRequired(
  res: ResponseWriter,
  encoded: EncodedPaymentRequired,
  settlement?: SettleResponse,
): void {
  const headers: WrittenHeaders = { [PAYMENT_REQUIRED]: encoded.header };
  if (settlement) headers[PAYMENT_RESPONSE] = encodeBase64Json(settlement);
  writeUncachedAnswer(res, 402, headers, JSON_CONTENT_TYPE, encoded.body, encoded.bodyBytes);
}

/** Add a field to `Vary`, keeping what earlier middleware (CORS's `Origin`) put there. */
export function addVary(res: ResponseWriter, field: string): void {
  res.setHeader("Vary", varyWith(res, field));
}

/** The response's `Vary` with `field` added (once), for a header written whole. */
function varyWith(res: ResponseWriter, field: string): string {
  const current = res.getHeader("Vary");
  if (current === undefined) return field;
  const fields = (Array.isArray(current) ? current.join(",") : String(current ?? ""))
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  if (!fields.some((value) => value.toLowerCase() === field.toLowerCase())) fields.push(field);
  return fields.join(", ");
}

/**
 * Answer with the one flat error body `{ error, message, details }`, in JSON — or, to a client that asked
 * for CBOR (its `Accept` or `Content-Type`, or `format` when the caller knows better, e.g. a CBOR-only
 * route), as the canonical CBOR map `{ error, reason, details? }` (`application/x402+cbor`): the seed
 * uses no JSON plaintext payloads with a CBOR client.
 */
export function sendError(
  res: ResponseWriter,
  error: GatewayError,
  format: PaymentFormat = asksForCbor(res.req?.headers) ? "cbor" : "json",
): void {
  const headers: WrittenHeaders = {};
  if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(error.retryAfterSeconds);
  Object.assign(headers, error.headers);
  const json = format === "json";
  const body = json
    ? JSON.stringify(error.toBody())
    : encodeErrorBody(error.code, error.message, error.details);
  writeUncachedAnswer(res, error.status, headers, json ? JSON_CONTENT_TYPE : CBOR_MEDIA_TYPE, body);
}

/** Mark a paid response: the receipt, and no shared caching. */
export function markPaid(res: ResponseWriter, settlement: SettleResponse): void {
  res.setHeader(PAYMENT_RESPONSE, encodeBase64Json(settlement));
  keepPrivate(res);
}

/** A paid answer is for its payer only: no shared caching, unless the handler said stricter. */
export function keepPrivate(res: ResponseWriter): void {
  const cacheControl = res.getHeader("Cache-Control");
  if (typeof cacheControl !== "string" || !/\b(private|no-store)\b/i.test(cacheControl)) {
    res.setHeader("Cache-Control", "private");
  }
}
