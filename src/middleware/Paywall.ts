import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "../protocol/errors.js";
import { PAYMENT_SIGNATURE, SIGN_IN_WITH_X, MAX_JSON_PAYMENT_HEADER_BYTES } from "../protocol/headers.js";
import { negotiatePaymentFormat } from "../protocol/negotiatePaymentFormat.js";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "../protocol/schemas.js";
import type { PricedRoute, RouteTable } from "../pricing/RouteTable.js";
import type { Facilitator } from "../facilitator/Facilitator.js";
import type { PaymentLedger } from "../ledger/PaymentLedger.js";
import { payerOf, paymentIdentity, spentUntilMs } from "../ledger/paymentIdentity.js";
import type { SignInGate } from "../recognition/SignInGate.js";
import { decodePaymentHeader } from "./decodePaymentHeader.js";
import { holdResponse, type HeldSnapshot } from "./holdResponse.js";
import type { Logger } from "../common/Logger.js";
import { matchRequirements } from "./matchRequirements.js";
import type { ErrorEvent, PaidEvent } from "./options.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import { markPaid, sendError, sendPaymentRequired, type Offer } from "./respond.js";
import { headerOf, originFormOf, splitUrl } from "./requestParts.js";
import { Offers } from "./Offers.js";
import { SettlementFailedError } from "./SettlementFailedError.js";
import type { SettlementChecker } from "../facilitator/SettlementChecker.js";
import { isUnknownSettleOutcome, SettlementUnknownError } from "./SettlementUnknownError.js";

/** Headers some frameworks and upstreams read as the request's real method. */
export const METHOD_OVERRIDE_HEADERS = ["x-http-method-override", "x-http-method", "x-method-override"];
import type { CborPaywall } from "./CborPaywall.js";
import { matchWithCborRetry, wantsCbor } from "./cborRouting.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";

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

/** A payment whose settlement outcome is unknown, with the response it pays for (mode `after`). */
interface PendingSettlement {
  routeKey: string;
  verified: Verified;
  held: HeldSnapshot | undefined;
  expiresAtMs: number;
  resolving: boolean;
}

/** At most this many unknown settlements are kept for a retry; beyond, the oldest is dropped. */
const MAX_PENDING_SETTLEMENTS = 256;

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

interface Verified {
  payment: PaymentPayload;
  requirements: PaymentRequirements;
  id: string;
  token: string;
  payer: string;
}

/**
 * The per-request flow of `x402()` (ARCHITECTURE.md): match → offer or verify → serve → settle.
 * Never serves a priced response whose payment did not settle, never settles one whose handler
 * failed, never lets one payment pay twice.
 */
export class Paywall {
  private readonly offers: Offers;
  private readonly pending = new Map<string, PendingSettlement>();

  constructor(private readonly deps: PaywallDeps) {
    this.offers = new Offers(deps);
  }

  readonly handle = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const target = originFormOf(req.url);
    if (target === undefined) return next();
    const { pathname, search } = splitUrl(target);
    const match = this.match(req, pathname);
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
    let closed = false;
    res.once("close", () => (closed = !res.writableFinished));
    const exchange: Exchange = {
      req,
      res,
      route,
      info,
      resourceUrl,
      offer: () => this.offers.offer(req, route, resourceUrl),
      gone: () => closed || res.destroyed || req.socket.destroyed,
    };
    try {
      await this.priced(exchange, next);
    } catch (error) {
      await this.reject(exchange, asGatewayError(error));
    }
  };

  /**
   * Price a request by its path, refusing what another reading could price differently: a method
   * override header (honoured by some apps and upstreams) naming a method priced otherwise.
   */
  private match(
    req: Request,
    pathname: string,
  ):
    | { kind: "free" }
    | { kind: "priced"; route: PricedRoute; path: string }
    | { kind: "invalid"; error: GatewayError } {
    const options = { refuseLenientReadings: this.deps.refuseLenientReadings };
    const match = matchWithCborRetry(this.deps.routes, req, pathname, options);
    if (match.kind === "invalid") {
      const error = new GatewayError(
        "invalid_path",
        "the path has an ambiguous encoding (encoded / or \\, or a spelling a lenient server reads as another priced route)",
        { details: { reason: match.reason } },
      );
      return { kind: "invalid", error };
    }
    for (const name of METHOD_OVERRIDE_HEADERS) {
      const value = headerOf(req, name);
      if (value === undefined) continue;
      for (const method of value.split(",").map((part) => part.trim().toUpperCase())) {
        if (method === "" || method === req.method.toUpperCase()) continue;
        const other = this.deps.routes.match(method, pathname, options);
        const same =
          other.kind === match.kind &&
          (other.kind !== "priced" || match.kind !== "priced" || other.route === match.route);
        if (!same) {
          const error = new GatewayError(
            "invalid_method_override",
            `${name} names ${method}, which is priced differently from ${req.method}: send the request with its real method`,
            { details: { header: name, method } },
          );
          return { kind: "invalid", error };
        }
      }
    }
    return match;
  }

  private async priced(exchange: Exchange, next: NextFunction): Promise<void> {
    const { req, route, info } = exchange;
    if (this.deps.requireTls(req) && !req.secure) {
      throw new GatewayError("tls_required", "priced routes are served over HTTPS only");
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
      return sendPaymentRequired(
        exchange.res,
        new GatewayError("payment_required", "this resource costs a payment: see PAYMENT-REQUIRED"),
        await exchange.offer(),
      );
    }
    const payment = decodePaymentHeader(header);
    const pending = this.pendingFor(paymentIdentity(payment));
    if (pending) return this.retryPending(exchange, pending, next);
    const verified = await this.verify(exchange, payment);
    // Nobody to serve: neither run the handler nor settle, and free the payment for a retry now.
    if (exchange.gone()) return this.abandon(exchange, verified, "during verification");
    if (route.settle === "before") {
      let settlement: SettleResponse;
      try {
        settlement = await this.settle(exchange, verified);
      } catch (error) {
        if (error instanceof SettlementUnknownError) this.keepPending(route, verified, undefined);
        throw error;
      }
      markPaid(exchange.res, settlement);
      return next();
    }
    await this.serveThenSettle(exchange, verified, next);
  }

  /** Match, reserve and verify a payment; the reservation is released on every failure. */
  private async verify(exchange: Exchange, payment: PaymentPayload): Promise<Verified> {
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
    const id = paymentIdentity(payment);
    const reservation = await this.reserve(id);
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
    const release = () => this.release(id, token);
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

  /** Reserve the payment's identity; a ledger that cannot answer fails closed (nothing is verified or served). */
  private async reserve(id: string): Promise<Awaited<ReturnType<PaymentLedger["reserve"]>>> {
    try {
      return await this.deps.ledger.reserve(id, { holdMs: this.deps.reservationTtlMs });
    } catch (error) {
      this.deps.observer.ledgerError?.("reserve");
      throw new GatewayError("ledger_unavailable", "the payment ledger cannot be reached; retry later", {
        cause: error,
        retryAfterSeconds: 1,
      });
    }
  }

  /** Give a reservation back; if the ledger cannot, the reservation simply expires (reservationTtlMs). */
  private async release(id: string, token: string): Promise<void> {
    try {
      await this.deps.ledger.release(id, token);
    } catch (error) {
      this.deps.observer.ledgerError?.("release");
      this.deps.logger.warn({ err: error }, "the ledger could not release a reservation; it will expire");
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
        await this.release(verified.id, verified.token);
        throw error;
      }
      settlement = await this.resolveUnknown(verified, error as GatewayError);
    }
    this.deps.observer.settleLatency?.(performance.now() - started, settlement.success);
    if (!settlement.success) {
      await this.release(verified.id, verified.token);
      throw new SettlementFailedError(settlement);
    }
    await this.recordSettled(exchange, verified, settlement);
    return settlement;
  }

  /** Ask the chain, for up to `settlementCheckTimeoutMs`, what a cut `/settle` did. */
  private async resolveUnknown(verified: Verified, cause: GatewayError): Promise<SettleResponse> {
    const checker = this.deps.settlementChecker;
    const { network } = verified.requirements;
    this.deps.logger.warn(
      { network, reason: cause.details.reason },
      "settle outcome unknown (timed out or cut): asking the chain",
    );
    if (!checker?.covers(network)) throw new SettlementUnknownError(`no rpcUrl for ${network}`, { cause });
    const deadline = this.deps.now() + this.deps.settlementCheckTimeoutMs;
    for (;;) {
      const result = await checker.check(verified.payment, verified.requirements);
      if (result.state === "settled") {
        return { success: true, transaction: result.transaction, network, payer: verified.payer };
      }
      if (result.state === "not_settled") {
        await this.release(verified.id, verified.token);
        throw new GatewayError("facilitator_unavailable", `the settlement did not happen: ${result.reason}`, {
          details: { endpoint: "settle", reason: cause.details.reason, chain: result.reason },
          retryAfterSeconds: cause.retryAfterSeconds,
          cause,
        });
      }
      if (this.deps.now() >= deadline) throw new SettlementUnknownError(result.reason, { cause });
      await new Promise((resolve) => setTimeout(resolve, this.deps.settlementCheckIntervalMs));
    }
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
      this.deps.observer.ledgerError?.("spend");
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

  /** Keep an unknown settlement (reservation and response) for a retry with the same payment. */
  private keepPending(route: PricedRoute, verified: Verified, held: HeldSnapshot | undefined): void {
    const now = this.deps.now();
    const expiresAtMs = Math.max(
      spentUntilMs(verified.payment, now, this.deps.reservationTtlMs) - 60_000,
      now + this.deps.reservationTtlMs,
    );
    if (this.pending.size >= MAX_PENDING_SETTLEMENTS) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    this.pending.set(verified.id, { routeKey: route.key, verified, held, expiresAtMs, resolving: false });
  }

  private pendingFor(id: string): PendingSettlement | undefined {
    const pending = this.pending.get(id);
    if (pending && pending.expiresAtMs <= this.deps.now() && !pending.resolving) {
      this.pending.delete(id);
      void this.release(id, pending.verified.token);
      this.deps.logger.warn({ route: pending.routeKey }, "an unknown settlement expired unresolved");
      return undefined;
    }
    return pending;
  }

  /**
   * A retry with a payment whose settlement is unknown: ask the chain (or, for an EIP-3009 authorization
   * without an RPC, settle again: the token refuses a nonce twice, so it cannot be charged twice), then
   * serve the kept response once settled.
   */
  private async retryPending(
    exchange: Exchange,
    pending: PendingSettlement,
    next: NextFunction,
  ): Promise<void> {
    const { route } = exchange;
    if (pending.routeKey !== route.key || pending.resolving) {
      throw new GatewayError(
        "payment_in_progress",
        "this payment is being used by another request; retry later",
        {
          retryAfterSeconds: 1,
        },
      );
    }
    const { verified } = pending;
    pending.resolving = true;
    let settlement: SettleResponse | undefined;
    let reason = "the settlement is still unknown";
    try {
      const checker = this.deps.settlementChecker;
      if (checker?.covers(verified.requirements.network)) {
        const result = await checker.check(verified.payment, verified.requirements);
        if (result.state === "settled") {
          settlement = {
            success: true,
            transaction: result.transaction,
            network: verified.requirements.network,
            payer: verified.payer,
          };
        } else if (result.state === "not_settled") {
          this.pending.delete(verified.id);
          await this.release(verified.id, verified.token);
          throw new GatewayError("settlement_failed", `the payment was not settled: ${result.reason}`, {
            details: { reason: result.reason },
          });
        } else reason = result.reason;
      }
      if (!settlement && verified.id.startsWith("evm|")) {
        try {
          const again = await this.deps.facilitator.settle(verified.payment, verified.requirements);
          if (again.success) settlement = again;
          else
            reason = `settling again failed: ${again.errorReason ?? "unknown"}; the first attempt may have landed`;
        } catch (error) {
          reason = `settling again failed: ${(error as Error).message}`;
        }
      }
    } finally {
      pending.resolving = false;
    }
    if (!settlement) throw new SettlementUnknownError(reason, { expiresAtMs: pending.expiresAtMs });
    this.pending.delete(verified.id);
    await this.recordSettled(exchange, verified, settlement);
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
      await this.release(verified.id, verified.token);
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
      await this.release(verified.id, verified.token);
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
      await this.release(verified.id, verified.token);
      Object.assign(info, { outcome: "upstream_failed", code: String(outcome.status) });
      this.deps.observer.outcome?.(route.key, "upstream_failed", String(outcome.status));
      return held.release();
    }
    try {
      markPaid(res, await this.settle(exchange, verified));
      held.release();
    } catch (error) {
      if (error instanceof SettlementUnknownError) this.keepPending(route, verified, held.snapshot());
      held.discard();
      await this.reject(exchange, asGatewayError(error));
    }
  }

  private async abandon(exchange: Exchange, verified: Verified, when: string): Promise<void> {
    await this.release(verified.id, verified.token);
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
