import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { CborFacilitator } from "../facilitator/CborFacilitator.js";
import type { PaymentLedger } from "../ledger/PaymentLedger.js";
import { issueCborRequest, matchCborContext, type IssuedRequest } from "../pricing/cborPaymentRequests.js";
import type { PricedRoute } from "../pricing/RouteTable.js";
import { CborError } from "../protocol/cbor/CborError.js";
import { checkPaymentIntent } from "../protocol/cbor/checkPaymentIntent.js";
import { decodeQuantifiedClaim, type QuantifiedClaim } from "../protocol/cbor/Claim.js";
import { decodePaymentSignature, type PaymentSignature } from "../protocol/cbor/PaymentSignature.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../protocol/cbor/profile.js";
import { payerIdOf } from "../protocol/cbor/signatures.js";
import { decodeBase64 } from "../protocol/decodeBase64.js";
import { GatewayError } from "../protocol/errors.js";
import { PAYMENT_SIGNATURE } from "../protocol/headers.js";
import { markCborPaid, sendCborPaymentRequired } from "./cborResponses.js";
import { dropPaymentContentType } from "./cborRouting.js";
import { enforceHumanityGate } from "./enforceHumanityGate.js";
import { serveHeld } from "./flow/serveHeld.js";
import type { Logger } from "../common/Logger.js";
import type { ErrorEvent, PaidEvent } from "./options.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import { headerOf } from "./requestParts.js";
import type { RequestFacts } from "./flow/RequestFacts.js";
import { addVary, sendError } from "./respond.js";
import { asGatewayError, reportPaid, reserveOrRefuse, safely } from "./flow/Exchange.js";
import { releaseReservation } from "./releaseReservation.js";
import { chargeGrantsOrRefuse, checkDelegationOrRefuse, type DelegationPolicy } from "./cborDelegation.js";

export interface CborPaywallDeps {
  facilitator: CborFacilitator;
  ledger: PaymentLedger;
  logger: Logger;
  observer: PaywallObserver;
  onPaid?: ((event: PaidEvent) => void) | undefined;
  onError?: ((event: ErrorEvent) => void) | undefined;
  now: () => number;
  maxHeldResponseBytes: number;
  reservationTtlMs: number;
  /** Clock difference tolerated on a PaymentRequest's deadline and a grant's expiry, in seconds. */
  skewSeconds: number;
  /** Delegation chains: their limits, or `false` to refuse them. */
  delegation: DelegationPolicy;
}

/** A priced request the CBOR path answers. */
export interface CborExchange {
  req: RequestFacts;
  res: ServerResponse;
  route: PricedRoute;
  info: PaywallRequestInfo;
}

interface Verified {
  issued: IssuedRequest;
  payment: PaymentSignature;
  paymentSignature: Uint8Array;
  claim: QuantifiedClaim;
  id: string;
  token: string;
  payer: string;
  /** The agent that signed the intent, when it paid through a delegation chain. */
  delegate?: string | undefined;
}

/**
 * The `application/x402+cbor` path of the paywall (WIRE.md §4): the CBOR offer, the checks the gateway
 * makes itself (canonical form, the context digest of a still-valid PaymentRequest of this route,
 * merchant, currency, amount, the subject's signature), then the payment ledger, then the CBOR
 * facilitator; settle-after (hold the answer, settle only a 2xx) or settle-before as for JSON.
 */
export class CborPaywall {
  constructor(private readonly deps: CborPaywallDeps) {}

  async handle(exchange: CborExchange, next: () => void): Promise<void> {
    try {
      await this.priced(exchange, next);
    } catch (error) {
      this.reject(exchange, asGatewayError(error));
    }
  }

  private async priced(exchange: CborExchange, next: () => void): Promise<void> {
    const { req, res, route } = exchange;
    const header = headerOf(req, PAYMENT_SIGNATURE);
    if (header === undefined) {
      this.deps.observer.outcome?.(route.key, "offered");
      return sendCborPaymentRequired(res, this.offer(route).bytes);
    }
    const verified = await this.verify(exchange, header);
    dropPaymentContentType(req);
    if (route.settle === "before") {
      markCborPaid(res, await this.settle(exchange, verified));
      return next();
    }
    const held = await serveHeld(this.deps, exchange, verified, next);
    if (held === undefined) return;
    try {
      markCborPaid(res, await this.settle(exchange, verified));
      held.release();
    } catch (error) {
      held.discard();
      throw error;
    }
  }

  private offer(route: PricedRoute): IssuedRequest {
    return issueCborRequest(cborOffer(route), this.deps.now());
  }

  /** Everything the gateway can check itself, then the ledger, then the facilitator. */
  private async verify(exchange: CborExchange, header: string): Promise<Verified> {
    const { route } = exchange;
    if (header.length > MAX_CBOR_PAYMENT_HEADER_CHARS) {
      throw new GatewayError("header_too_large", "PAYMENT-SIGNATURE is over 64 KiB of CBOR", {
        details: { header: "PAYMENT-SIGNATURE", limit: MAX_CBOR_PAYMENT_HEADER_CHARS },
      });
    }
    let paymentSignature: Uint8Array;
    let payment: PaymentSignature;
    let claim: QuantifiedClaim;
    try {
      paymentSignature = decodeBase64(header);
      payment = decodePaymentSignature(paymentSignature);
      claim = decodeQuantifiedClaim(payment.paymentIntent);
    } catch (error) {
      if (error instanceof CborError) throw error.toInvalidPayment("PAYMENT-SIGNATURE");
      throw new GatewayError(
        "invalid_payment",
        `PAYMENT-SIGNATURE is not base64: ${(error as Error).message}`,
        {
          details: { header: "PAYMENT-SIGNATURE", stage: "base64" },
        },
      );
    }
    const match = matchCborContext(cborOffer(route), claim.context, this.deps.now(), this.deps.skewSeconds);
    if (!match.ok) {
      throw new GatewayError(
        "payment_mismatch",
        match.reason === "expired"
          ? "the PaymentRequest this intent answers has expired: fetch a new offer"
          : "the intent does not answer a PaymentRequest of this route",
        { details: { field: "payment_intent.context", reason: match.reason } },
      );
    }
    const mismatch = checkPaymentIntent(match.issued.request, claim, payment);
    if (mismatch) {
      const { code, ...details } = mismatch;
      throw new GatewayError(
        code,
        code === "payment_mismatch"
          ? `the intent does not match this route: ${mismatch.field} differs`
          : "the signature is not the intent subject's over payment_intent",
        { details },
      );
    }
    enforceHumanityGate(cborOffer(route), payment, claim, this.deps);
    const delegation = checkDelegationOrRefuse(
      this.deps.delegation,
      match.issued.request,
      claim,
      payment,
      this.deps.now(),
    );
    const id = `cbor|${createHash("sha256").update(payment.paymentIntent).digest("hex")}`;
    const token = await reserveOrRefuse(this.deps, id, this.deps.reservationTtlMs, "payment intent");
    const started = performance.now();
    try {
      // Released below on any failure, and the ledger refunds the grants with the reservation.
      await chargeGrantsOrRefuse(this.deps, id, delegation, claim.quantity.amount);
      const verdict = await this.deps.facilitator.verifyCbor({
        paymentRequest: match.issued.bytes,
        paymentSignature,
      });
      this.deps.observer.verifyLatency?.(performance.now() - started, verdict.isValid);
      if (!verdict.isValid) {
        throw new GatewayError(
          "verification_failed",
          `the facilitator rejected the payment: ${verdict.invalidReason}`,
          {
            details: { reason: verdict.invalidReason },
          },
        );
      }
      // Through a chain, the root pays: the agent only signs on its behalf.
      const payer = delegation ? payerIdOf(delegation.root) : (verdict.payer ?? payerIdOf(claim.subject));
      const delegate = delegation && payerIdOf(claim.subject);
      return { issued: match.issued, payment, paymentSignature, claim, id, token, payer, delegate };
    } catch (error) {
      if (error instanceof GatewayError && error.code.startsWith("facilitator_")) {
        this.deps.observer.facilitatorError?.("verify", error.code);
      }
      await releaseReservation(this.deps, id, token);
      throw error;
    }
  }

  /** Settle; on success the intent is spent until its request's deadline has passed, otherwise released. */
  private async settle(exchange: CborExchange, verified: Verified): Promise<Uint8Array> {
    const { route, info } = exchange;
    const started = performance.now();
    const body = { paymentRequest: verified.issued.bytes, paymentSignature: verified.paymentSignature };
    let receipt: Uint8Array | undefined;
    try {
      const settlement = await this.deps.facilitator.settleCbor(body);
      this.deps.observer.settleLatency?.(performance.now() - started, settlement.success);
      if (!settlement.success || settlement.receipt === undefined) {
        throw new GatewayError(
          "settlement_failed",
          `settlement failed: ${settlement.errorReason ?? "no receipt"}`,
          {
            details: { reason: settlement.errorReason },
          },
        );
      }
      receipt = settlement.receipt;
    } catch (error) {
      if (error instanceof GatewayError && error.code.startsWith("facilitator_")) {
        this.deps.observer.settleLatency?.(performance.now() - started, false);
        this.deps.observer.facilitatorError?.("settle", error.code);
      }
      await releaseReservation(this.deps, verified.id, verified.token);
      throw error;
    }
    const keepUntilMs = verified.issued.request.deadline.getTime() + (this.deps.skewSeconds + 60) * 1000;
    try {
      await this.deps.ledger.spend(verified.id, verified.token, { keepUntilMs });
    } catch (error) {
      this.deps.observer.ledgerError?.("spend");
      // The money has moved: serve the response. The facilitator refuses to settle the same intent twice.
      this.deps.logger.error(
        { err: error, route: route.key },
        "settled, but the ledger could not mark the intent spent",
      );
    }
    const { currency, amount } = verified.claim.quantity;
    const paid: PaidEvent = {
      payer: verified.payer,
      amount: amount.toString(),
      asset: currency,
      network: "x402+cbor",
      route: route.key,
      transaction: `receipt:${createHash("sha256").update(receipt).digest("hex")}`,
      ...(verified.delegate === undefined ? {} : { delegate: verified.delegate }),
    };
    reportPaid(this.deps, info, paid, "payment settled (x402+cbor)");
    return receipt;
  }

  private reject(exchange: CborExchange, error: GatewayError): void {
    const { res, route, info } = exchange;
    Object.assign(info, { outcome: "rejected", code: error.code });
    this.deps.observer.outcome?.(route.key, "rejected", error.code);
    this.deps.logger[error.status >= 500 ? "warn" : "info"](
      { code: error.code, route: route.key, details: error.details, format: "x402+cbor" },
      error.message,
    );
    safely(() => this.deps.onError?.({ error, code: error.code, route: route.key }), this.deps.logger);
    if (res.headersSent) return;
    addVary(res, "Accept");
    if (error.status !== 402) return sendError(res, error);
    sendCborPaymentRequired(res, this.offer(route).bytes, error);
  }
}

function cborOffer(route: PricedRoute) {
  if (route.cbor === undefined)
    throw new GatewayError("internal_error", `route ${route.key} has no CBOR offer`);
  return route.cbor;
}
