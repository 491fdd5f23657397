import { equalBytesConstantTime } from "../common/digests.js";
import {
  encodePaymentRequest,
  paymentRequestDigest,
  type PaymentRequest,
} from "../protocol/cbor/PaymentRequest.js";
import type { CborRouteOffer } from "./resolveCborOffer.js";

/** Deadlines fall on whole minutes, so the few requests still valid can be recomputed, never stored. */
export const DEADLINE_GRID_SECONDS = 60;
/** How far back an expired request is still recognised as this route's, to say "expired" rather than "unknown". */
const EXPIRED_LOOKBACK_SECONDS = 60 * 60;

export interface IssuedRequest {
  request: PaymentRequest;
  /** The canonical CBOR bytes: the offer's header and body, and what the facilitator receives. */
  bytes: Uint8Array;
}

export type ContextMatch = { ok: true; issued: IssuedRequest } | { ok: false; reason: "expired" | "unknown" };

/** The PaymentRequest a route issues at `nowMs`: its deadline is now + lifetime, rounded up to the grid. */
export function issueCborRequest(offer: CborRouteOffer, nowMs: number): IssuedRequest {
  const nowSeconds = Math.floor(nowMs / 1000);
  const deadline = roundUp(nowSeconds + offer.deadlineSeconds);
  return requestWithDeadline(offer, deadline);
}

/**
 * Find the PaymentRequest of this route whose SHA-256 is `context` and whose deadline has not passed
 * (minus `skewSeconds`): recomputes each grid deadline from now − skew to the latest one issuable now
 * + skew (lifetime / 60 + a few candidates). A digest of one of the route's requests from the last
 * hour is reported as `expired`; anything else as `unknown` (another route's, or made up).
 */
export function matchCborContext(
  offer: CborRouteOffer,
  context: Uint8Array,
  nowMs: number,
  skewSeconds: number,
): ContextMatch {
  const nowSeconds = Math.floor(nowMs / 1000);
  const latest = roundUp(nowSeconds + skewSeconds + offer.deadlineSeconds);
  const earliest = Math.max(0, roundUp(nowSeconds - skewSeconds));
  for (let deadline = latest; deadline >= earliest; deadline -= DEADLINE_GRID_SECONDS) {
    if (sameDigest(offer, deadline, context))
      return { ok: true, issued: requestWithDeadline(offer, deadline) };
  }
  for (
    let deadline = earliest - DEADLINE_GRID_SECONDS;
    deadline > Math.max(0, earliest - EXPIRED_LOOKBACK_SECONDS);
    deadline -= DEADLINE_GRID_SECONDS
  ) {
    if (sameDigest(offer, deadline, context)) return { ok: false, reason: "expired" };
  }
  return { ok: false, reason: "unknown" };
}

/** A route's PaymentRequest for one deadline, encoded, and the digest an intent's context names. */
interface KnownRequest {
  issued: IssuedRequest;
  digest: Uint8Array;
}

/**
 * Each route's PaymentRequests by deadline, encoded and hashed once rather than on every offer and paid
 * request. Enough for every deadline `matchCborContext` visits (the valid ones and an hour back); the
 * oldest computed go first.
 */
const known = new WeakMap<CborRouteOffer, Map<number, KnownRequest>>();
const KNOWN_PER_ROUTE = 128;

function knownRequest(offer: CborRouteOffer, deadlineSeconds: number): KnownRequest {
  let byDeadline = known.get(offer);
  if (byDeadline === undefined) {
    byDeadline = new Map();
    known.set(offer, byDeadline);
  }
  let entry = byDeadline.get(deadlineSeconds);
  if (entry === undefined) {
    const request: PaymentRequest = {
      currency: offer.currency,
      amount: offer.amount,
      merchantPseudonym: offer.merchantPseudonym,
      serviceId: offer.serviceId,
      deadline: new Date(deadlineSeconds * 1000),
      revelationMaskRef: offer.revelationMaskRef,
      acceptsHumanityGate: offer.acceptsHumanityGate,
      claimSchemaRef: offer.claimSchemaRef,
    };
    const bytes = encodePaymentRequest(request);
    entry = { issued: { request, bytes }, digest: paymentRequestDigest(bytes) };
    if (byDeadline.size >= KNOWN_PER_ROUTE) byDeadline.delete(byDeadline.keys().next().value as number);
    byDeadline.set(deadlineSeconds, entry);
  }
  return entry;
}

function requestWithDeadline(offer: CborRouteOffer, deadlineSeconds: number): IssuedRequest {
  return knownRequest(offer, deadlineSeconds).issued;
}

function sameDigest(offer: CborRouteOffer, deadlineSeconds: number, context: Uint8Array): boolean {
  const { digest } = knownRequest(offer, deadlineSeconds);
  return equalBytesConstantTime(digest, context);
}

function roundUp(seconds: number): number {
  return Math.ceil(seconds / DEADLINE_GRID_SECONDS) * DEADLINE_GRID_SECONDS;
}
