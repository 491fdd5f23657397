import type { IncomingHttpHeaders } from "node:http";
import type { PricedRoute, RouteMatch } from "../../pricing/RouteTable.js";
import { hasBody } from "../request/hasBody.js";
import { PAYMENT_SIGNATURE } from "../../protocol/headers.js";
import { negotiatePaymentFormat, type PaymentFormat } from "../../protocol/negotiatePaymentFormat.js";
import { preferredOfferFormat } from "../../protocol/preferredOfferFormat.js";

/**
 * Match a request, taking the CBOR paid retry into account: a `POST` with
 * `Content-Type: application/x402+cbor`, a `PAYMENT-SIGNATURE` and no body, on a path whose `GET` is
 * priced with a CBOR offer (and whose `POST` is not priced), is that GET: the method is rewritten so
 * the handler or upstream sees `GET`. Nothing else about routing changes.
 */
export function matchWithCborRetry(
  matchAs: (method: string) => RouteMatch,
  req: { method: string; headers: IncomingHttpHeaders },
): RouteMatch {
  const match = matchAs(req.method);
  if (match.kind !== "free" || req.method !== "POST" || !isCborRetry(req)) return match;
  const get = matchAs("GET");
  if (get.kind !== "priced" || get.route.cbor === undefined) return match;
  req.method = "GET";
  return get;
}

/** Whether the CBOR path answers this priced request: a CBOR payment, or an unpaid request that prefers (or can only get) a CBOR offer. */
export function wantsCbor(
  req: { headers: IncomingHttpHeaders },
  route: PricedRoute,
  paymentFormat: PaymentFormat,
): boolean {
  if (route.cbor === undefined) return false;
  if (paymentFormat === "cbor") return true;
  if (req.headers[PAYMENT_SIGNATURE] !== undefined) return false;
  return isCborOnly(route) || preferredOfferFormat(req.headers.accept) === "cbor";
}

/**
 * Whether a request asked for `application/x402+cbor`: its `Content-Type` is that (a CBOR payment), or
 * its `Accept` prefers it. Such a client gets every refusal as a CBOR body, never JSON.
 */
export function asksForCbor(headers: IncomingHttpHeaders | undefined): boolean {
  if (headers === undefined) return false;
  return isCborPayment(headers) || preferredOfferFormat(headers.accept) === "cbor";
}

/** A route offered in `application/x402+cbor` only: every answer it gives is CBOR, whatever was asked. */
export function isCborOnly(route: PricedRoute): boolean {
  return route.cbor !== undefined && route.requirements.length === 0;
}

/**
 * The payment's media type describes the headers, not a body: a body-less request carrying it (the paid
 * retry) reaches the resource without it. The framing headers are never touched: dropping them would
 * forward a body unframed, and the upstream would read it as further requests (issue 20, item 1).
 */
export function dropPaymentContentType(req: { headers: IncomingHttpHeaders }): void {
  if (isCborPayment(req.headers) && !hasBody(req.headers)) delete req.headers["content-type"];
}

function isCborRetry(req: { headers: IncomingHttpHeaders }): boolean {
  return !hasBody(req.headers) && req.headers[PAYMENT_SIGNATURE] !== undefined && isCborPayment(req.headers);
}

function isCborPayment(headers: IncomingHttpHeaders): boolean {
  const format = negotiatePaymentFormat(headers["content-type"]);
  return format.ok && format.format === "cbor";
}
