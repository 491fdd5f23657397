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
import { SolanaFeePayers } from "./SolanaFeePayers.js";
import { checkRequestBody } from "../request/checkRequestBody.js";
import type { IdempotentRetries } from "./IdempotentRetries.js";
import type { PaymentPayload } from "../../protocol/schemas.js";
import { servedOnPass, withPass } from "../passes/servedOnPass.js";
import { meterOrRelease, serveUnused } from "../metered/serveMetered.js";

/**
 * A priced request: TLS, payment format, sign-in, then an offer, or a payment to verify, serve and
 * settle. One money path for both formats: what differs sits behind {@link PaymentWire}. Throws what it
 * refuses, with `exchange.wire` set to the format that should answer the refusal.
 */
export class PricedRequests {
  private readonly feePayers: SolanaFeePayers;

  constructor(
    private readonly deps: PaymentFlowDeps,
    private readonly offers: Offers,
    private readonly json: PaymentWire,
    private readonly cbor: PaymentWire | undefined,
    private readonly unknown: UnknownSettlements,
    private readonly settlements: Settlements,
    private readonly retries: IdempotentRetries,
  ) {
    this.feePayers = new SolanaFeePayers(deps.facilitator);
  }

  async handle(exchange: Exchange, next: Next): Promise<void> {
    const { req, route, info } = exchange;
    const { startup } = this.deps;
    if (startup !== undefined && !startup.isReady) await startup.gate();
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
    const deciding = this.deps.hooks.protectedRequest(
      req,
      route,
      exchange.path,
      headerOf(req, PAYMENT_SIGNATURE),
    );
    const decided = deciding && (await deciding);
    if (decided?.kind === "grant") {
      Object.assign(info, { outcome: "granted" });
      this.deps.observer.outcome?.(route.key, "granted");
      this.deps.logger.info({ route: route.key }, "onProtectedRequest let the request in without payment");
      return next();
    }
    if (decided?.kind === "deny") {
      throw new GatewayError("request_denied", decided.reason, { details: { reason: decided.reason } });
    }
    const passes = this.deps.passes?.sells(route) ? this.deps.passes : undefined;
    if (passes && (await passes.admit(req, route, headerOf(req, PAYMENT_SIGNATURE) !== undefined)))
      return servedOnPass(this.deps, exchange, next);
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
      if (passes && admitted.proven && (await passes.admitPayer(route, admitted.address))) {
        exchange.info.payer = admitted.address;
        return servedOnPass(this.deps, exchange, next);
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
    // A body that breaks the route's schema is refused before anything is offered, reserved or settled
    // (a CBOR payment is itself the body: not checked).
    if (route.validateBody !== undefined && wire === this.json)
      await checkRequestBody(req, route.validateBody, this.deps.maxBodyBytes);
    // Functions of the request price its JSON options now, for the offer and for a paid retry alike (a CBOR
    // route's price is its own).
    if (route.dynamic !== undefined && wire === this.json)
      exchange.requirements = await route.dynamic(routeRequestContext(exchange));
    // Solana options name the facilitator's fee payer, read from its /supported before the first offer.
    if (wire === this.json && SolanaFeePayers.needed(exchange.requirements))
      await this.feePayers.fill(exchange.requirements ?? []);
    const header = headerOf(req, PAYMENT_SIGNATURE);
    if (header === undefined) {
      this.deps.observer.outcome?.(route.key, "offered");
      return wire.offerUnpaid(exchange);
    }
    if (route.settle === "before") refuseUnboundedBody(req);
    const decoded = wire.decode(header);
    const id = wire.identity(decoded);
    // payment-identifier: a retry of a payment whose response was kept gets it again, not charged twice.
    const retryId =
      wire === this.json ? this.retries.identifierOf(route, decoded as PaymentPayload) : undefined;
    if (retryId !== undefined && (await this.retries.replay(exchange, wire, retryId, id))) return;
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
      await this.markPaid(exchange, wire, verified, receipt);
      return next();
    }
    await this.serveThenSettle(exchange, wire, verified, next, retryId);
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
      await this.markPaid(exchange, wire, pending.verified, receipt);
      return next();
    }
    res.statusCode = pending.held.status;
    for (const [name, value] of Object.entries(pending.held.headers))
      if (value !== undefined) res.setHeader(name, value);
    await this.markPaid(exchange, wire, pending.verified, receipt);
    res.end(pending.held.body);
  }

  /** Put the receipt on the paid answer, with the pass it bought when the route sells one. */
  private async markPaid(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    receipt: unknown,
  ): Promise<void> {
    const passes = this.deps.passes;
    if (passes === undefined || !passes.sells(exchange.route)) return wire.markPaid(exchange.res, receipt);
    const { payer } = wire.paidEvent(exchange.route, verified, receipt);
    const grant = await passes.issue(exchange.req, exchange.res, exchange.route, payer);
    wire.markPaid(exchange.res, grant === undefined ? receipt : withPass(wire, exchange.res, receipt, grant));
  }

  /** Mode `after`: hold the handler's answer; settle only a 2xx; release or drop it accordingly. */
  private async serveThenSettle(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    next: Next,
    retryId?: string,
  ): Promise<void> {
    const { route } = exchange;
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
    const metered = await meterOrRelease(this.deps, exchange, verified, held);
    if (metered.kind === "nothing") return serveUnused(this.deps, exchange, wire, verified, held);
    const charged = metered.verified;
    try {
      const receipt = await this.settlements.settle(exchange, wire, charged, "after-handler");
      await this.markPaid(exchange, wire, charged, receipt);
      if (retryId !== undefined)
        await this.retries.keep(route, retryId, charged.id, held.snapshot(), receipt);
      held.release();
    } catch (error) {
      if (error instanceof SettlementUnknownError)
        this.unknown.keep(route.key, wire, charged, held.snapshot());
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
