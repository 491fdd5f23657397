import type { Logger } from "../../common/Logger.js";
import type { Facilitator } from "../../facilitator/Facilitator.js";
import type { SettlementChecker } from "../../facilitator/SettlementChecker.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PricedRoute, RouteTable } from "../../pricing/RouteTable.js";
import type { SignInGate } from "../../recognition/SignInGate.js";
import type { GatewayError } from "../../protocol/errors.js";
import { isCborOnly } from "../wires/cborRouting.js";
import { hasBody } from "../request/hasBody.js";
import { matchPricedRequest } from "../request/matchPricedRequest.js";
import { unsupportedPaymentFormat } from "../wires/unsupportedPaymentFormat.js";
import { negotiatePaymentFormat } from "../../protocol/negotiatePaymentFormat.js";
import { Offers } from "../responses/Offers.js";
import type { ErrorEvent, PaidEvent } from "../setup/options.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import { invalidPath } from "../request/invalidPath.js";
import { allowedMethods } from "../request/allowedMethods.js";
import { answerPreflight } from "../request/answerPreflight.js";
import { originFormOf, splitUrl } from "../request/requestParts.js";
import { sendError } from "../responses/respond.js";
import { UnknownSettlements } from "./UnknownSettlements.js";
import { asGatewayError, safely, type Exchange, type Next } from "./Exchange.js";
import { JsonPaymentWire } from "../wires/JsonPaymentWire.js";
import type { PaymentWire } from "../wires/PaymentWire.js";
import type { PaywallPage } from "../page/PaywallPage.js";
import { PricedRequests } from "./PricedRequests.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import type { ResponsePort } from "../responses/ResponsePort.js";
import { Settlements } from "./Settlements.js";
import type { StartupChecks } from "../setup/StartupChecks.js";
import { IdempotentRetries } from "./IdempotentRetries.js";
import type { Passes } from "../passes/Passes.js";
import type { HookRunner } from "./HookRunner.js";

/** Everything the per-request flow depends on: interfaces, never implementations. */
export interface PaymentFlowDeps {
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
  /** Whether this request must come over TLS (plain HTTP is then `403 tls_required`). */
  requireTls: (req: RequestFacts) => boolean;
  /** Refuse paths a lenient server could read as a different priced route (`400 invalid_path`). */
  refuseLenientReadings: boolean;
  maxHeldResponseBytes: number;
  /** Cap on a request body read for a route's `requestBody` check, in bytes. */
  maxBodyBytes: number;
  reservationTtlMs: number;
  spentTtlMs: number;
  /** Asks the chain whether a payment whose `/settle` timed out or was cut was settled. */
  settlementChecker?: SettlementChecker | undefined;
  /** How long to keep asking the chain before answering `settlement_unknown`, in ms. */
  settlementCheckTimeoutMs: number;
  settlementCheckIntervalMs: number;
  /** The page a browser gets instead of the JSON 402, when on. */
  paywallPage?: PaywallPage | undefined;
  /** The `application/x402+cbor` format, when some route offers it. */
  cbor?: PaymentWire | undefined;
  /** How long a paid response is kept for a `payment-identifier` retry, in ms. */
  paymentIdentifierWindowMs: number;
  /** What must pass before a priced request is taken (none: nothing to wait for). */
  startup?: StartupChecks | undefined;
  /** Passes, when some route sells them (docs/passes.md). */
  passes?: Passes | undefined;
  /** The user's lifecycle hooks (`hooks`, the gateway's `plugins`). */
  hooks: HookRunner;
}

/**
 * The per-request flow of the paywall (docs/design/ARCHITECTURE.md), framework-free: match → offer or verify
 * → serve → settle, on a request's {@link RequestFacts} and a {@link ResponsePort}. Never serves a priced
 * response whose payment did not settle, never settles one whose handler failed, never lets one payment pay
 * twice. Adapters (`x402()` for Express, `x402Node()`, `x402Fetch()`…) only build the two.
 */
export class PaymentFlow {
  private readonly offers: Offers;
  private readonly json: PaymentWire;
  private readonly priced: PricedRequests;

  constructor(private readonly deps: PaymentFlowDeps) {
    this.offers = new Offers(deps);
    this.json = new JsonPaymentWire({
      facilitator: deps.facilitator,
      offers: this.offers,
      hasSignIn: (route) => deps.signInGateFor(route) !== undefined,
      checker: deps.settlementChecker,
      spentTtlMs: deps.spentTtlMs,
      page: deps.paywallPage,
      logger: deps.logger,
    });
    const unknown = new UnknownSettlements({
      ledger: deps.ledger,
      logger: deps.logger,
      observer: deps.observer,
      now: deps.now,
      checkTimeoutMs: deps.settlementCheckTimeoutMs,
      checkIntervalMs: deps.settlementCheckIntervalMs,
      reservationTtlMs: deps.reservationTtlMs,
    });
    const settlements = new Settlements(deps, unknown);
    const retries = new IdempotentRetries({
      ledger: deps.ledger,
      logger: deps.logger,
      windowMs: deps.paymentIdentifierWindowMs,
    });
    this.priced = new PricedRequests(deps, this.offers, this.json, deps.cbor, unknown, settlements, retries);
  }

  /**
   * Answer a request, or pass it to `next` (free, recognised, or paid and held until settled).
   * `track` receives the priced request's outcome record, filled in as the flow goes (for access logs).
   */
  async handle(
    req: RequestFacts,
    res: ResponsePort,
    next: Next,
    track?: (info: PaywallRequestInfo) => void,
  ): Promise<void> {
    const target = originFormOf(req.url);
    if (target === undefined) {
      // `OPTIONS *` asks about the server, not a resource; any other target that is not a path is refused.
      if (req.method === "OPTIONS" && req.url === "*") return next();
      const error = invalidPath("not_origin_form");
      this.report(error, undefined);
      return sendError(res, error);
    }
    const parts = splitUrl(target);
    const { search } = parts;
    const match = matchPricedRequest(this.deps.routes, req, parts, {
      refuseLenientReadings: this.deps.refuseLenientReadings,
    });
    if (match.kind === "free") {
      const refusal = unknownPaymentType(req);
      if (refusal === undefined) return next();
      this.report(refusal, undefined);
      return sendError(res, refusal);
    }
    if (match.kind === "invalid") {
      this.report(match.error, undefined);
      return sendError(res, match.error);
    }
    const { route, path } = match;
    if (isPreflight(req) && route.pattern.method === undefined) {
      // A route without a method prices OPTIONS too, but a browser cannot pay for its preflight.
      const allow = allowedMethods(this.deps.routes, (method) => this.deps.routes.match(method, path));
      return answerPreflight(res, allow ?? []);
    }
    // Serve exactly the path that was priced.
    req.url = path + search;
    const info: PaywallRequestInfo = { route: route.key, outcome: "offered" };
    track?.(info);
    const resourceUrl = this.offers.resourceUrl(req, path + search);
    const exchange: Exchange = {
      req,
      res,
      route,
      path,
      info,
      resourceUrl,
      offer: () => this.offers.offer(req, route, resourceUrl, exchange.requirements ?? []),
      requirements: route.dynamic === undefined ? route.requirements : undefined,
      gone: () => res.gone(),
      wire: this.json,
    };
    try {
      await this.priced.handle(exchange, next);
    } catch (error) {
      await this.reject(exchange, asGatewayError(error));
    }
  }

  private async reject(exchange: Exchange, error: GatewayError): Promise<void> {
    const { res, route, info, wire } = exchange;
    Object.assign(info, { outcome: "rejected", code: error.code });
    this.deps.observer.outcome?.(route.key, "rejected", error.code);
    this.report(error, route, wire);
    if (res.headersSent) return;
    // A CBOR-only route answers CBOR whatever was asked, refusals included (before a format was chosen too).
    if (error.status !== 402 && isCborOnly(route)) return sendError(res, error, "cbor");
    await wire.refuse(exchange, error);
  }

  private report(error: GatewayError, route: PricedRoute | undefined, wire?: PaymentWire): void {
    const level = error.status >= 500 ? "warn" : "info";
    const format = wire === undefined || wire === this.json ? undefined : wire.label;
    // What a route function threw or returned, and why the ledger could not answer (Redis's own words:
    // a timeout, a `WAIT` short of replicas), are the operator's to read, never the client's.
    const err =
      error.code === "route_function_failed" ||
      error.code === "route_function_invalid" ||
      error.code === "hook_failed" ||
      error.code === "ledger_unavailable"
        ? error.cause
        : undefined;
    this.deps.logger[level](
      {
        code: error.code,
        route: route?.key,
        details: error.details,
        format,
        ...(err !== undefined ? { err } : {}),
      },
      error.message,
    );
    safely(() => this.deps.onError?.({ error, code: error.code, route: route?.key }), this.deps.logger);
  }
}

/**
 * A request with a body in an `application/x402…` type other than `application/x402+cbor` is a payment
 * format this gateway does not speak, wherever it goes: refused (415) rather than handed to the resource.
 */
function unknownPaymentType(req: RequestFacts): GatewayError | undefined {
  const contentType = req.headers["content-type"];
  if (contentType === undefined || !hasBody(req.headers)) return undefined;
  const format = negotiatePaymentFormat(contentType);
  return format.ok ? undefined : unsupportedPaymentFormat(format.mediaType);
}

/** A CORS preflight: `OPTIONS` naming the method the browser means to send. */
function isPreflight(req: RequestFacts): boolean {
  return req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
}
