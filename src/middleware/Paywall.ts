import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "../protocol/errors.js";
import { PAYMENT_SIGNATURE, SIGN_IN_WITH_X, MAX_JSON_PAYMENT_HEADER_BYTES } from "../protocol/headers.js";
import { negotiatePaymentFormat } from "../protocol/negotiatePaymentFormat.js";
import type { PaymentPayload, SettleResponse } from "../protocol/schemas.js";
import type { PricedRoute, RouteTable } from "../pricing/RouteTable.js";
import type { Facilitator } from "../facilitator/Facilitator.js";
import type { PaymentLedger } from "../ledger/PaymentLedger.js";
import { payerOf, paymentIdentity, spentUntilMs } from "../ledger/paymentIdentity.js";
import type { SignInGate } from "../recognition/SignInGate.js";
import { decodePaymentHeader } from "./decodePaymentHeader.js";
import { holdResponse } from "./holdResponse.js";
import type { Logger } from "../common/Logger.js";
import { matchRequirements } from "./matchRequirements.js";
import type { ErrorEvent, PaidEvent } from "./options.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import {
  encodePaymentRequired,
  markPaid,
  sendEncodedPaymentRequired,
  sendError,
  sendPaymentRequired,
  type Offer,
} from "./respond.js";
import { PlainOfferCache } from "./PlainOfferCache.js";
import { headerOf, originFormOf, splitUrl } from "./requestParts.js";
import { matchPricedRequest } from "./matchPricedRequest.js";
import { Offers } from "./Offers.js";
import { SettlementFailedError } from "./SettlementFailedError.js";
import type { SettlementChecker } from "../facilitator/SettlementChecker.js";
import { UnknownSettlements, type PendingSettlement } from "./UnknownSettlements.js";
import type { Verified } from "./Verified.js";
import { isUnknownSettleOutcome, SettlementUnknownError } from "./SettlementUnknownError.js";
import type { CborPaywall } from "./CborPaywall.js";
import { wantsCbor } from "./cborRouting.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";

/** The error every plain offer carries: always the same, so built once (an Error captures a stack trace). */
const PAYMENT_REQUIRED_ERROR = new GatewayError(
  "payment_required",
  "this resource costs a payment: see PAYMENT-REQUIRED",
);

/** Everything the per-request flow depends on: interfaces, never implementations. */
export interface PaywallDeps {
  routes: RouteTable;
  facilitator: Facilitator;
  ledger: PaymentLedger;
  signInGateFor: (route: PricedRoute) => SignInGate | undefined;
  logger: Logger;
  observer: PaywallObserver;
  onPaid?: ((event: PaidEvent) => void) | undefined;
  onError?: ((event: ErrorEvent) => void) | undefined;
  now: () => number;
  publicUrl?: string | undefined;
  allowedHosts?: readonly string[] | undefined;
  requireTls: (req: Request) => boolean;
  /** Refuse paths a lenient server could read as a different priced route (`400 invalid_path`). */
  refuseLenientReadings: boolean;
  maxHeldResponseBytes: number;
  reservationTtlMs: number;
  spentTtlMs: number;
  /** Asks the chain whether a payment whose `/settle` timed out or was cut was settled. */
  settlementChecker?: SettlementChecker | undefined;
  /** How long to keep asking the chain before answering `settlement_unknown`, in ms. */
  settlementCheckTimeoutMs: number;
  settlementCheckIntervalMs: number;
  /** The `application/x402+cbor` path, when some route offers it. */
  cbor?: CborPaywall | undefined;
}

/** One priced request on its way through the paywall. */
interface Exchange {
  req: Request;
  res: Response;
  route: PricedRoute;
  info: PaywallRequestInfo;
  /** The URL offers name (`resource.url`) and sign-in proofs must be for. */
  resourceUrl: string;
  offer: () => Promise<Offer>;
  /** Whether the client hung up before its response was complete. */
  gone: () => boolean;
}

/**
 * The per-request flow of `x402()` (ARCHITECTURE.md): match → offer or verify → serve → settle.
 * Never serves a priced response whose payment did not settle, never settles one whose handler
 * failed, never lets one payment pay twice.
 */
export class Paywall {
  private readonly offers: Offers;
  private readonly unknown: UnknownSettlements;
  private readonly plainOffers: PlainOfferCache;

  constructor(private readonly deps: PaywallDeps) {
    this.offers = new Offers(deps);
    this.plainOffers = new PlainOfferCache((route, resourceUrl) =>
      encodePaymentRequired(PAYMENT_REQUIRED_ERROR, this.offers.plain(route, resourceUrl)),
    );
    this.unknown = new UnknownSettlements({
      facilitator: deps.facilitator,
      ledger: deps.ledger,
      logger: deps.logger,
      now: deps.now,
      checker: deps.settlementChecker,
      checkTimeoutMs: deps.settlementCheckTimeoutMs,
      checkIntervalMs: deps.settlementCheckIntervalMs,
      reservationTtlMs: deps.reservationTtlMs,
    });
  }

  readonly handle = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const target = originFormOf(req.url);
    if (target === undefined) return next();
    const { pathname, search } = splitUrl(target);
    const match = matchPricedRequest(this.deps.routes, req, pathname, {
      refuseLenientReadings: this.deps.refuseLenientReadings,
    });
    if (match.kind === "free") return next();
    if (match.kind === "invalid") {
      this.report(match.error, undefined);
      return sendError(res, match.error);
    }
    const { route, path } = match;
    // Serve exactly the path that was priced.
    req.url = path + search;
    const info: PaywallRequestInfo = { route: route.key, outcome: "offered" };
    res.locals.x402 = info;
    const resourceUrl = this.offers.resourceUrl(req, path + search);
    const exchange: Exchange = {
      req,
      res,
      route,
      info,
      resourceUrl,
      offer: () => this.offers.offer(req, route, resourceUrl),
      // Node sets `destroyed` before a response emits 'close': no listener needed.
      gone: () => res.destroyed || req.socket.destroyed,
    };
    try {
      await this.priced(exchange, next);
    } catch (error) {
      await this.reject(exchange, asGatewayError(error));
    }
  };

  private async priced(exchange: Exchange, next: NextFunction): Promise<void> {
    const { req, route, info } = exchange;
    if (this.deps.requireTls(req) && !req.secure) {
      throw new GatewayError(
        "tls_required",
        "priced routes are served over HTTPS only (setting requireTls; behind a TLS-terminating proxy, set Express's trust proxy)",
        { details: { setting: "requireTls" } },
      );
    }
    const format = negotiatePaymentFormat(req.headers["content-type"]);
    if (!format.ok) {
      throw new GatewayError(
        "unsupported_media_type",
        `payment format ${format.mediaType} is not supported`,
        {
          details: { supported: ["application/json (base64 JSON headers)", CBOR_MEDIA_TYPE] },
        },
      );
    }
    const gate = this.deps.signInGateFor(route);
    const signIn = headerOf(req, SIGN_IN_WITH_X);
    if (gate && signIn !== undefined) {
      if (signIn.length > MAX_JSON_PAYMENT_HEADER_BYTES) {
        throw new GatewayError(
          "header_too_large",
          `SIGN-IN-WITH-X is over ${MAX_JSON_PAYMENT_HEADER_BYTES} bytes`,
        );
      }
      const admitted = await gate.admit(signIn, this.offers.signInContext(req, route, exchange.resourceUrl));
      if (admitted.recognized) {
        Object.assign(info, { outcome: "recognized", payer: admitted.address });
        this.deps.observer.outcome?.(route.key, "recognized");
        this.deps.logger.info({ route: route.key, payer: admitted.address }, "recognized payer let in");
        return next();
      }
    }
    if (this.deps.cbor && wantsCbor(req, route, format.format)) return this.deps.cbor.handle(exchange, next);
    if (format.format === "cbor") {
      throw new GatewayError(
        "unsupported_media_type",
        `this route does not take ${CBOR_MEDIA_TYPE} payments`,
        {
          details: { supported: ["application/json (base64 JSON headers)"] },
        },
      );
    }
    const header = headerOf(req, PAYMENT_SIGNATURE);
    if (header === undefined) {
      this.deps.observer.outcome?.(route.key, "offered");
      if (gate === undefined)
        return sendEncodedPaymentRequired(exchange.res, this.plainOffers.get(route, exchange.resourceUrl));
      return sendPaymentRequired(exchange.res, PAYMENT_REQUIRED_ERROR, await exchange.offer());
    }
    const payment = decodePaymentHeader(header);
    const id = paymentIdentity(payment);
    const pending = this.unknown.get(id);
    if (pending) return this.retryPending(exchange, pending, next);
    const verified = await this.verify(exchange, payment, id);
    // Nobody to serve: neither run the handler nor settle, and free the payment for a retry now.
    if (exchange.gone()) return this.abandon(exchange, verified, "during verification");
    if (route.settle === "before") {
      let settlement: SettleResponse;
      try {
        settlement = await this.settle(exchange, verified);
      } catch (error) {
        if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, verified, undefined);
        throw error;
      }
      markPaid(exchange.res, settlement);
      return next();
    }
    await this.serveThenSettle(exchange, verified, next);
  }

  /** Match, reserve and verify a payment; the reservation is released on every failure. */
  private async verify(exchange: Exchange, payment: PaymentPayload, id: string): Promise<Verified> {
    const matched = matchRequirements(exchange.route.requirements, payment);
    if (!matched.ok) {
      throw new GatewayError(
        "payment_mismatch",
        `the payment does not match this route: ${matched.field} differs`,
        {
          details: { field: matched.field, expected: matched.expected, received: matched.received },
        },
      );
    }
    const reservation = await this.deps.ledger.reserve(id, { holdMs: this.deps.reservationTtlMs });
    if (reservation.status === "spent") {
      throw new GatewayError("payment_already_used", "this payment has already paid for a response");
    }
    if (reservation.status === "in_progress") {
      throw new GatewayError(
        "payment_in_progress",
        "this payment is being used by another request; retry later",
        {
          retryAfterSeconds: 1,
        },
      );
    }
    const { token } = reservation;
    const release = () => this.deps.ledger.release(id, token);
    const started = performance.now();
    try {
      const verdict = await this.deps.facilitator.verify(payment, matched.requirements);
      this.deps.observer.verifyLatency?.(performance.now() - started, verdict.isValid);
      if (!verdict.isValid) {
        throw new GatewayError(
          "verification_failed",
          `the facilitator rejected the payment: ${verdict.invalidReason}`,
          {
            details: {
              reason: verdict.invalidReason,
              reasonMessage: verdict.invalidMessage,
              payer: verdict.payer,
            },
          },
        );
      }
      const payer = verdict.payer ?? payerOf(payment);
      return { payment, requirements: matched.requirements, id, token, payer };
    } catch (error) {
      if (error instanceof GatewayError && error.code.startsWith("facilitator_")) {
        this.deps.observer.facilitatorError?.("verify", error.code);
      }
      await release();
      throw error;
    }
  }

  /**
   * Settle; on success the payment is spent, otherwise released (no money moved, or the chain refuses
   * it anyway). A timed-out or cut `/settle` has an unknown outcome: the chain is asked, and while it
   * cannot tell, {@link SettlementUnknownError} is thrown with the payment still reserved.
   */
  private async settle(exchange: Exchange, verified: Verified): Promise<SettleResponse> {
    const started = performance.now();
    let settlement: SettleResponse;
    try {
      settlement = await this.deps.facilitator.settle(verified.payment, verified.requirements);
    } catch (error) {
      this.deps.observer.settleLatency?.(performance.now() - started, false);
      if (error instanceof GatewayError) this.deps.observer.facilitatorError?.("settle", error.code);
      if (!isUnknownSettleOutcome(error)) {
        await this.deps.ledger.release(verified.id, verified.token);
        throw error;
      }
      settlement = await this.unknown.resolve(verified, error as GatewayError);
    }
    this.deps.observer.settleLatency?.(performance.now() - started, settlement.success);
    if (!settlement.success) {
      await this.deps.ledger.release(verified.id, verified.token);
      throw new SettlementFailedError(settlement);
    }
    await this.recordSettled(exchange, verified, settlement);
    return settlement;
  }

  /** Spend the payment in the ledger and report it paid. */
  private async recordSettled(
    exchange: Exchange,
    verified: Verified,
    settlement: SettleResponse,
  ): Promise<void> {
    const { route, info } = exchange;
    try {
      await this.deps.ledger.spend(verified.id, verified.token, {
        keepUntilMs: spentUntilMs(verified.payment, this.deps.now(), this.deps.spentTtlMs),
      });
    } catch (error) {
      // The money has moved: serve the response. A replay still fails at the token contract (nonce used).
      this.deps.logger.error(
        { err: error, route: route.key },
        "settled, but the ledger could not mark the payment spent",
      );
    }
    const paid: PaidEvent = {
      payer: settlement.payer ?? verified.payer,
      amount: verified.requirements.amount,
      asset: verified.requirements.asset,
      network: verified.requirements.network,
      route: route.key,
      transaction: settlement.transaction,
    };
    Object.assign(info, {
      outcome: "paid",
      payer: paid.payer,
      amount: paid.amount,
      transaction: paid.transaction,
    });
    this.deps.observer.outcome?.(route.key, "paid");
    this.deps.logger.info({ ...paid }, "payment settled");
    safely(() => this.deps.onPaid?.(paid), this.deps.logger);
  }

  /** A retry with a payment whose settlement is unknown: serve the kept response once it is settled. */
  private async retryPending(
    exchange: Exchange,
    pending: PendingSettlement,
    next: NextFunction,
  ): Promise<void> {
    const settlement = await this.unknown.retry(exchange.route.key, pending);
    await this.recordSettled(exchange, pending.verified, settlement);
    const { res } = exchange;
    if (!pending.held) {
      markPaid(res, settlement);
      return next();
    }
    res.statusCode = pending.held.status;
    for (const [name, value] of Object.entries(pending.held.headers))
      if (value !== undefined) res.setHeader(name, value);
    markPaid(res, settlement);
    res.end(pending.held.body);
  }

  /** Mode `after`: hold the handler's answer; settle only a 2xx; release or drop it accordingly. */
  private async serveThenSettle(exchange: Exchange, verified: Verified, next: NextFunction): Promise<void> {
    const { res, route, info } = exchange;
    const held = holdResponse(res, this.deps.maxHeldResponseBytes);
    next();
    const outcome = await held.outcome;
    if (outcome.kind === "closed") {
      await this.deps.ledger.release(verified.id, verified.token);
      this.deps.logger.info(
        { route: route.key },
        "client went away before the response was complete; not settled",
      );
      return;
    }
    if (exchange.gone()) {
      held.discard();
      return this.abandon(exchange, verified, "before settlement");
    }
    this.deps.observer.heldBytes?.(outcome.bytes);
    if (outcome.kind === "overflow") {
      await this.deps.ledger.release(verified.id, verified.token);
      held.discard();
      return this.reject(
        exchange,
        new GatewayError(
          "response_too_large",
          `the response is over ${this.deps.maxHeldResponseBytes} bytes`,
          {
            details: { limit: this.deps.maxHeldResponseBytes },
          },
        ),
      );
    }
    if (outcome.status < 200 || outcome.status > 299) {
      await this.deps.ledger.release(verified.id, verified.token);
      Object.assign(info, { outcome: "upstream_failed", code: String(outcome.status) });
      this.deps.observer.outcome?.(route.key, "upstream_failed", String(outcome.status));
      return held.release();
    }
    try {
      markPaid(res, await this.settle(exchange, verified));
      held.release();
    } catch (error) {
      if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, verified, held.snapshot());
      held.discard();
      await this.reject(exchange, asGatewayError(error));
    }
  }

  private async abandon(exchange: Exchange, verified: Verified, when: string): Promise<void> {
    await this.deps.ledger.release(verified.id, verified.token);
    this.deps.logger.info(
      { route: exchange.route.key },
      `client went away ${when}; not served, not settled, payment released`,
    );
  }

  private async reject(exchange: Exchange, error: GatewayError): Promise<void> {
    const { res, route, info } = exchange;
    Object.assign(info, { outcome: "rejected", code: error.code });
    this.deps.observer.outcome?.(route.key, "rejected", error.code);
    this.report(error, route);
    if (res.headersSent) return;
    if (error.status !== 402) return sendError(res, error);
    let offer: Offer;
    try {
      offer = await exchange.offer();
    } catch {
      offer = { resource: { url: exchange.resourceUrl }, accepts: route.requirements };
    }
    sendPaymentRequired(
      res,
      error,
      offer,
      error instanceof SettlementFailedError ? error.settlement : undefined,
    );
  }

  private report(error: GatewayError, route: PricedRoute | undefined): void {
    const level = error.status >= 500 ? "warn" : "info";
    this.deps.logger[level]({ code: error.code, route: route?.key, details: error.details }, error.message);
    safely(() => this.deps.onError?.({ error, code: error.code, route: route?.key }), this.deps.logger);
  }
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", "the paywall failed unexpectedly; nothing was settled", {
    cause: error,
  });
}

function safely(hook: () => void, logger: Logger): void {
  try {
    hook();
  } catch (error) {
    logger.error({ err: error }, "a paywall hook threw");
  }
}
