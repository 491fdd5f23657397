import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";
import { GatewayError } from "../../protocol/errors.js";
import { MAX_JSON_PAYMENT_HEADER_BYTES, PAYMENT_SIGNATURE, SIGN_IN_WITH_X } from "../../protocol/headers.js";
import { negotiatePaymentFormat } from "../../protocol/negotiatePaymentFormat.js";
import { wantsCbor } from "../wires/cborRouting.js";
import { unsupportedPaymentFormat } from "../wires/unsupportedPaymentFormat.js";
import type { Offers } from "../responses/Offers.js";
import { headerOf } from "../request/requestParts.js";
import { SettlementUnknownError } from "./SettlementUnknownError.js";
import type { PendingSettlement, UnknownSettlements } from "./UnknownSettlements.js";
import type { Exchange, Next } from "./Exchange.js";
import type { PaymentFlowDeps } from "./PaymentFlow.js";
import type { PaymentWire, Verified } from "../wires/PaymentWire.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import type { Settlements } from "./Settlements.js";
import { verifyPayment } from "./verifyPayment.js";
import { serveHeld } from "./serveHeld.js";
import { releaseReservation } from "./releaseReservation.js";
import { routeRequestContext } from "../request/routeRequestContext.js";

/**
 * A priced request: TLS, payment format, sign-in, then an offer, or a payment to verify, serve and
 * settle. One money path for both formats: what differs sits behind {@link PaymentWire}. Throws what it
 * refuses, with `exchange.wire` set to the format that should answer the refusal.
 */
export class PricedRequests {
  constructor(
    private readonly deps: PaymentFlowDeps,
    private readonly offers: Offers,
    private readonly json: PaymentWire,
    private readonly cbor: PaymentWire | undefined,
    private readonly unknown: UnknownSettlements,
    private readonly settlements: Settlements,
  ) {}

  async handle(exchange: Exchange, next: Next): Promise<void> {
    const { req, route, info } = exchange;
    if (this.deps.requireTls(req) && !req.secure) {
      throw new GatewayError(
        "tls_required",
        "priced routes are served over HTTPS only (setting requireTls); behind a TLS-terminating proxy, trust it: the gateway's trustProxy, or Express's trust proxy for x402()",
        { details: { setting: "requireTls" } },
      );
    }
    const format = negotiatePaymentFormat(req.headers["content-type"]);
    if (!format.ok) throw unsupportedPaymentFormat(format.mediaType);
    // The official decides here, before any offer: let in without payment, or refuse.
    const decided = await this.deps.hooks.protectedRequest(
      this.deps.hooks.request(req, route, exchange.path, headerOf(req, PAYMENT_SIGNATURE)),
      route,
    );
    if (decided?.kind === "grant") {
      Object.assign(info, { outcome: "granted" });
      this.deps.observer.outcome?.(route.key, "granted");
      this.deps.logger.info({ route: route.key }, "onProtectedRequest let the request in without payment");
      return next();
    }
    if (decided?.kind === "deny") {
      throw new GatewayError("request_denied", decided.reason, { details: { reason: decided.reason } });
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
    if (this.cbor && wantsCbor(req, route, format.format)) exchange.wire = this.cbor;
    else if (format.format === "cbor") {
      throw new GatewayError(
        "unsupported_media_type",
        `this route does not take ${CBOR_MEDIA_TYPE} payments`,
        {
          details: { supported: ["application/json (base64 JSON headers)"] },
        },
      );
    }
    const wire = exchange.wire;
    // Functions of the request price its JSON options now, for the offer and for a paid retry alike (a CBOR
    // route's price is its own).
    if (route.dynamic !== undefined && wire === this.json)
      exchange.requirements = await route.dynamic(routeRequestContext(exchange));
    const header = headerOf(req, PAYMENT_SIGNATURE);
    if (header === undefined) {
      this.deps.observer.outcome?.(route.key, "offered");
      return wire.offerUnpaid(exchange);
    }
    if (route.settle === "before") refuseUnboundedBody(req);
    const decoded = wire.decode(header);
    const id = wire.identity(decoded);
    const pending = this.unknown.get(id);
    if (pending) return this.retryPending(exchange, pending, header, next);
    const checking = wire.check(exchange, decoded);
    const checked = checking instanceof Promise ? await checking : checking;
    exchange.hookContext = {
      ...wire.hookView(checked),
      declaredExtensions: route.config.extensions ?? {},
      transportContext: { request: this.deps.hooks.request(req, route, exchange.path, header) },
    };
    const verified = await verifyPayment(this.deps, wire, checked, id, header, exchange.hookContext);
    // Nobody to serve: neither run the handler nor settle, and free the payment for a retry now.
    if (exchange.gone()) return this.abandon(exchange, verified, "during verification");
    wire.beforeServing?.(exchange);
    if (verified.skipHandler !== undefined) return this.answerForHandler(exchange, wire, verified);
    if (route.settle === "before") {
      let receipt: unknown;
      try {
        receipt = await this.settlements.settle(exchange, wire, verified, "before-handler");
      } catch (error) {
        if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, wire, verified, undefined);
        throw error;
      }
      wire.markPaid(exchange.res, receipt);
      return next();
    }
    await this.serveThenSettle(exchange, wire, verified, next);
  }

  /** A retry with a payment whose settlement is unknown: serve the kept response once it is settled. */
  private async retryPending(
    exchange: Exchange,
    pending: PendingSettlement,
    header: string,
    next: Next,
  ): Promise<void> {
    const receipt = await this.unknown.retry(pending, exchange.route.key, header);
    const { wire } = pending;
    await this.settlements.recordSettled(exchange, wire, pending.verified, receipt);
    const { res } = exchange;
    if (!pending.held) {
      wire.beforeServing?.(exchange);
      wire.markPaid(res, receipt);
      return next();
    }
    res.statusCode = pending.held.status;
    for (const [name, value] of Object.entries(pending.held.headers))
      if (value !== undefined) res.setHeader(name, value);
    wire.markPaid(res, receipt);
    res.end(pending.held.body);
  }

  /** Mode `after`: hold the handler's answer; settle only a 2xx; release or drop it accordingly. */
  private async serveThenSettle(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    next: Next,
  ): Promise<void> {
    const { res, route } = exchange;
    const held = await serveHeld(
      this.deps,
      exchange,
      {
        id: verified.id,
        token: verified.token,
        gone: exchange.gone,
        abandon: () => this.abandon(exchange, verified, "before settlement"),
      },
      next,
    );
    if (held === undefined) return;
    try {
      wire.markPaid(res, await this.settlements.settle(exchange, wire, verified, "after-handler"));
      held.release();
    } catch (error) {
      if (error instanceof SettlementUnknownError)
        this.unknown.keep(route.key, wire, verified, held.snapshot());
      held.discard();
      throw error;
    }
  }

  /**
   * An `onAfterVerify` hook's `skipHandler`: settle, then answer 200 with its body (the official's
   * `processSkipHandlerSettlement`); the handler never runs.
   */
  private async answerForHandler(exchange: Exchange, wire: PaymentWire, verified: Verified): Promise<void> {
    const { res, route } = exchange;
    const { contentType = "application/json", body = {} } = verified.skipHandler ?? {};
    const bytes =
      body instanceof Uint8Array
        ? body
        : new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
    const answer = {
      status: 200,
      headers: { "content-type": contentType, "cache-control": "private" },
      body: bytes,
    };
    let receipt: unknown;
    try {
      receipt = await this.settlements.settle(exchange, wire, verified, "after-handler");
    } catch (error) {
      if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, wire, verified, answer);
      throw error;
    }
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    wire.markPaid(res, receipt);
    res.end(bytes);
  }

  private async abandon(exchange: Exchange, verified: Verified, when: string): Promise<void> {
    await releaseReservation(this.deps, verified.id, verified.token);
    this.deps.logger.info(
      { route: exchange.route.key },
      `client went away ${when}; not served, not settled, payment released`,
    );
  }
}

/**
 * Settle-before settles before the handler reads the body, so the body must be bounded first: one whose
 * length is not declared (chunked) and not yet read is refused `411 length_required` before anything is
 * reserved; a declared length is held to the cap by whatever reads it (the gateway's `limits`).
 */
function refuseUnboundedBody(req: RequestFacts): void {
  if (req.bodyComplete || req.headers["transfer-encoding"] === undefined) return;
  throw new GatewayError(
    "length_required",
    "this route settles before it is served: send the body with a Content-Length, not chunked",
    { details: { header: "Content-Length" } },
  );
}
