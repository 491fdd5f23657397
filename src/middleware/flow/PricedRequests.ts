import { paymentIdentity } from "../../ledger/paymentIdentity.js";
import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";
import { GatewayError } from "../../protocol/errors.js";
import { MAX_JSON_PAYMENT_HEADER_BYTES, PAYMENT_SIGNATURE, SIGN_IN_WITH_X } from "../../protocol/headers.js";
import { negotiatePaymentFormat } from "../../protocol/negotiatePaymentFormat.js";
import type { SettleResponse } from "../../protocol/schemas.js";
import { wantsCbor } from "../cborRouting.js";
import { decodePaymentHeader } from "../decodePaymentHeader.js";
import type { Offers } from "../Offers.js";
import { headerOf } from "../requestParts.js";
import {
  encodePaymentRequired,
  markPaid,
  sendEncodedPaymentRequired,
  sendPaymentRequired,
} from "../respond.js";
import { SettlementUnknownError } from "../SettlementUnknownError.js";
import type { PendingSettlement, UnknownSettlements } from "../UnknownSettlements.js";
import type { Verified } from "../Verified.js";
import type { Exchange, Next } from "./Exchange.js";
import type { PaymentFlowDeps } from "./PaymentFlow.js";
import type { Settlements } from "./Settlements.js";
import { verifyPayment } from "./verifyPayment.js";
import { serveHeld } from "./serveHeld.js";
import { releaseReservation } from "../releaseReservation.js";
import { PlainOfferCache } from "../PlainOfferCache.js";

/** The error every plain offer carries: always the same, so built once (an Error captures a stack trace). */
const PAYMENT_REQUIRED_ERROR = new GatewayError(
  "payment_required",
  "this resource costs a payment: see PAYMENT-REQUIRED",
);

/** A priced request: TLS, payment format, sign-in, then an offer or a payment to verify, serve and settle. Throws what it refuses. */
export class PricedRequests {
  private readonly plainOffers: PlainOfferCache;

  constructor(
    private readonly deps: PaymentFlowDeps,
    private readonly offers: Offers,
    private readonly unknown: UnknownSettlements,
    private readonly settlements: Settlements,
  ) {
    this.plainOffers = new PlainOfferCache((route, resourceUrl) =>
      encodePaymentRequired(PAYMENT_REQUIRED_ERROR, offers.plain(route, resourceUrl)),
    );
  }

  async handle(exchange: Exchange, next: Next): Promise<void> {
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
      // Without a sign-in challenge nothing in the offer varies per request: send it encoded once.
      if (this.deps.signInGateFor(route) === undefined) {
        return sendEncodedPaymentRequired(exchange.res, this.plainOffers.get(route, exchange.resourceUrl));
      }
      return sendPaymentRequired(exchange.res, PAYMENT_REQUIRED_ERROR, await exchange.offer());
    }
    const payment = decodePaymentHeader(header);
    const id = paymentIdentity(payment);
    const pending = this.unknown.get(id);
    if (pending) return this.retryPending(exchange, pending, next);
    const verified = await verifyPayment(this.deps, route, payment, id);
    // Nobody to serve: neither run the handler nor settle, and free the payment for a retry now.
    if (exchange.gone()) return this.abandon(exchange, verified, "during verification");
    if (route.settle === "before") {
      let settlement: SettleResponse;
      try {
        settlement = await this.settlements.settle(exchange, verified);
      } catch (error) {
        if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, verified, undefined);
        throw error;
      }
      markPaid(exchange.res, settlement);
      return next();
    }
    await this.serveThenSettle(exchange, verified, next);
  }

  /** A retry with a payment whose settlement is unknown: serve the kept response once it is settled. */
  private async retryPending(exchange: Exchange, pending: PendingSettlement, next: Next): Promise<void> {
    const settlement = await this.unknown.retry(exchange.route.key, pending);
    await this.settlements.recordSettled(exchange, pending.verified, settlement);
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
  private async serveThenSettle(exchange: Exchange, verified: Verified, next: Next): Promise<void> {
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
      markPaid(res, await this.settlements.settle(exchange, verified));
      held.release();
    } catch (error) {
      if (error instanceof SettlementUnknownError) this.unknown.keep(route.key, verified, held.snapshot());
      held.discard();
      throw error;
    }
  }

  private async abandon(exchange: Exchange, verified: Verified, when: string): Promise<void> {
    await releaseReservation(this.deps, verified.id, verified.token);
    this.deps.logger.info(
      { route: exchange.route.key },
      `client went away ${when}; not served, not settled, payment released`,
    );
  }
}
