import type { ResponseWriter } from "../responses/ResponsePort.js";
import type { Facilitator } from "../../facilitator/Facilitator.js";
import type { SettlementChecker } from "../../facilitator/SettlementChecker.js";
import { payerOf, paymentIdentity, spentUntilMs } from "../../ledger/paymentIdentity.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "../../protocol/schemas.js";
import { decodePaymentHeader } from "./decodePaymentHeader.js";
import { extensionEchoMismatch } from "../../protocol/extensionEchoMismatch.js";
import { fitsSeveral, matchRequirements } from "../request/matchRequirements.js";
import type { Offers } from "../responses/Offers.js";
import { PlainOfferCache } from "../responses/PlainOfferCache.js";
import type { PaidEvent } from "../setup/options.js";
import {
  encodePaymentRequired,
  markPaid,
  sendEncodedPaymentRequired,
  sendError,
  sendPaymentRequired,
  type Offer,
} from "../responses/respond.js";
import { SettlementFailedError } from "../flow/SettlementFailedError.js";
import { SETTLEMENT_UNKNOWN_RETRY_SECONDS } from "../flow/SettlementUnknownError.js";
import type { Exchange } from "../flow/Exchange.js";
import type { PaywallPage } from "../page/PaywallPage.js";
import type { Logger } from "../../common/Logger.js";
import {
  customResponseBody,
  sendCustomPaymentRequired,
  settlementFailure,
  type EncodedBody,
} from "../responses/customResponseBody.js";
import { routeRequestContext } from "../request/routeRequestContext.js";
import type {
  PaymentWire,
  Verified,
  WireHookView,
  WireSettlement,
  WireSettlementCheck,
} from "./PaymentWire.js";
import type { HookSettleResponse, HookVerifyResponse } from "../flow/PaymentHooks.js";

/** The error every plain offer carries: always the same, so built once (an Error captures a stack trace). */
const PAYMENT_REQUIRED_ERROR = new GatewayError(
  "payment_required",
  "this resource costs a payment: see PAYMENT-REQUIRED",
);

/** A JSON payment matched to one of its route's options. */
export interface JsonPayment {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
}

/** A JSON payment the facilitator verified, with the payer it named. */
export interface VerifiedJsonPayment extends JsonPayment {
  payer: string;
}

export interface JsonPaymentWireDeps {
  facilitator: Facilitator;
  offers: Offers;
  /** Whether a route's offer carries a sign-in challenge (then it varies per request and is not cached). */
  hasSignIn: (route: PricedRoute) => boolean;
  /** Asks the chain whether a payment whose `/settle` timed out or was cut was settled. */
  checker?: SettlementChecker | undefined;
  spentTtlMs: number;
  /** The page a browser gets instead of the JSON 402. */
  page?: PaywallPage | undefined;
  logger?: Logger | undefined;
}

/** The x402 V2 default: base64 JSON headers, the `exact` options of the route, an x402 facilitator. */
export class JsonPaymentWire implements PaymentWire<
  PaymentPayload,
  JsonPayment,
  VerifiedJsonPayment,
  SettleResponse
> {
  readonly label = "x402";
  private readonly plainOffers: PlainOfferCache;

  constructor(private readonly deps: JsonPaymentWireDeps) {
    this.plainOffers = new PlainOfferCache((route, resourceUrl, req) =>
      encodePaymentRequired(PAYMENT_REQUIRED_ERROR, deps.offers.plain(route, resourceUrl, req)),
    );
  }

  async offerUnpaid(exchange: Exchange): Promise<void> {
    const { page } = this.deps;
    const { route } = exchange;
    if (page?.answers(exchange)) {
      const offer = await exchange.offer();
      return page.send(exchange, offer, encodePaymentRequired(PAYMENT_REQUIRED_ERROR, offer).header);
    }
    if (route.config.unpaidResponseBody !== undefined) {
      const custom = await customResponseBody(route.config, "unpaidResponseBody", () =>
        routeRequestContext(exchange),
      );
      const { header } = encodePaymentRequired(PAYMENT_REQUIRED_ERROR, await exchange.offer());
      return sendCustomPaymentRequired(exchange.res, header, custom as EncodedBody);
    }
    // Without a sign-in challenge or functions of the request nothing in the offer varies per request: send
    // it encoded once.
    if (route.dynamic === undefined && !this.deps.hasSignIn(route)) {
      return sendEncodedPaymentRequired(
        exchange.res,
        this.plainOffers.get(exchange.route, exchange.resourceUrl, exchange.req),
      );
    }
    sendPaymentRequired(exchange.res, PAYMENT_REQUIRED_ERROR, await exchange.offer());
  }

  async refuse(exchange: Exchange, error: GatewayError): Promise<void> {
    const { res } = exchange;
    if (error.status !== 402) return sendError(res, error);
    let offer: Offer;
    try {
      offer = await exchange.offer();
    } catch {
      offer = { resource: { url: exchange.resourceUrl }, accepts: exchange.requirements ?? [] };
    }
    const settlement = error instanceof SettlementFailedError ? error.settlement : undefined;
    const custom = settlement && (await this.settlementFailedBody(exchange, settlement));
    if (custom !== undefined) {
      const { header } = encodePaymentRequired(error, offer);
      return sendCustomPaymentRequired(res, header, custom, settlement);
    }
    sendPaymentRequired(res, error, offer, settlement);
  }

  /**
   * The route's own body for a failed settlement; when it cannot be had, the standard one (the client must
   * still learn that its payment did not settle), and the failure is logged.
   */
  private async settlementFailedBody(
    exchange: Exchange,
    settlement: SettleResponse,
  ): Promise<EncodedBody | undefined> {
    const { config, key } = exchange.route;
    if (config.settlementFailedResponseBody === undefined) return undefined;
    try {
      return await customResponseBody(
        config,
        "settlementFailedResponseBody",
        () => routeRequestContext(exchange),
        settlementFailure(settlement),
      );
    } catch (error) {
      this.deps.logger?.warn(
        { route: key, err: error },
        "settlementFailedResponseBody failed: the standard settlement_failed body was sent",
      );
      return undefined;
    }
  }

  decode(header: string): PaymentPayload {
    return decodePaymentHeader(header);
  }

  identity(payload: PaymentPayload): string {
    return paymentIdentity(payload);
  }

  check(exchange: Exchange, payload: PaymentPayload): JsonPayment {
    const { requirements } = exchange;
    if (requirements === undefined)
      throw new Error("the route's requirements were not computed for this request");
    // A route with functions is matched against the requirements computed for this very request.
    const matched = matchRequirements(requirements, payload);
    if (!matched.ok) {
      throw new GatewayError(
        "payment_mismatch",
        `the payment does not match this route: ${matched.field} differs`,
        { details: { field: matched.field, expected: matched.expected, received: matched.received } },
      );
    }
    if (exchange.route.dynamic !== undefined && fitsSeveral(requirements, payload)) {
      throw new GatewayError(
        "payment_mismatch",
        "the payment fits several of the options computed for this request: it must name exactly one",
        { details: { field: "accepted", expected: "exactly one option", received: "several" } },
      );
    }
    // As the official: what the offer advertised, the payment's `extensions` may echo, not change (the
    // sign-in challenge, not in the plain offer, is proven by SIGN-IN-WITH-X itself).
    const echoes = payload.extensions !== undefined && Object.keys(payload.extensions).length > 0;
    const offered = echoes
      ? this.deps.offers.plain(exchange.route, exchange.resourceUrl, exchange.req, requirements).extensions
      : undefined;
    const extension = echoes ? extensionEchoMismatch(offered, payload.extensions) : undefined;
    if (extension !== undefined) {
      throw new GatewayError(
        "extension_echo_mismatch",
        `the payment's extensions.${extension} does not echo what the offer advertised`,
        { details: { extension } },
      );
    }
    return { payload, requirements: matched.requirements };
  }

  askVerify(checked: JsonPayment): Promise<HookVerifyResponse> {
    return this.deps.facilitator.verify(checked.payload, checked.requirements);
  }

  admit(checked: JsonPayment, verdict: HookVerifyResponse): { payment: VerifiedJsonPayment; payer: string } {
    const payer = verdict.payer ?? payerOf(checked.payload);
    return { payment: { ...checked, payer }, payer };
  }

  hookView(checked: JsonPayment): WireHookView {
    return { format: "x402", paymentPayload: checked.payload, requirements: checked.requirements };
  }

  hookSettlement(_payment: VerifiedJsonPayment, result: HookSettleResponse): WireSettlement<SettleResponse> {
    const { receipt: _receipt, ...settlement } = result;
    if (settlement.success === true) return { ok: true, receipt: settlement };
    return { ok: false, error: new SettlementFailedError(settlement) };
  }

  settlementRefused(payment: VerifiedJsonPayment, reason: string, message?: string): GatewayError {
    const { network } = payment.requirements;
    return new SettlementFailedError({
      success: false,
      errorReason: reason,
      ...(message === undefined ? {} : { errorMessage: message }),
      transaction: "",
      network,
    });
  }

  settleResponseOf(_payment: VerifiedJsonPayment, receipt: SettleResponse): SettleResponse {
    return receipt;
  }

  async settle(payment: VerifiedJsonPayment): Promise<WireSettlement<SettleResponse>> {
    const settlement = await this.deps.facilitator.settle(payment.payload, payment.requirements);
    if (settlement.success) return { ok: true, receipt: settlement };
    // A transaction sent but not yet final: the money may move, so the outcome is unknown, found out
    // on chain (or kept for a retry), never a failure that releases the payment.
    if (isPendingWithTransaction(settlement)) {
      throw new GatewayError(
        "facilitator_unavailable",
        `the facilitator's settlement is pending (transaction ${settlement.transaction})`,
        {
          details: { endpoint: "settle", reason: "pending", transaction: settlement.transaction },
          retryAfterSeconds: SETTLEMENT_UNKNOWN_RETRY_SECONDS,
        },
      );
    }
    return { ok: false, error: new SettlementFailedError(settlement) };
  }

  canCheck(payment: VerifiedJsonPayment): boolean {
    return this.deps.checker?.covers(payment.requirements.network) === true;
  }

  /** The chain first; on a retry, an EIP-3009 payment is settled again (the token refuses its nonce twice). */
  async checkSettlement(
    payment: VerifiedJsonPayment,
    retry: boolean,
  ): Promise<WireSettlementCheck<SettleResponse>> {
    const { network } = payment.requirements;
    let reason = `no rpcUrl for ${network}`;
    if (this.canCheck(payment)) {
      const result = await (this.deps.checker as SettlementChecker).check(
        payment.payload,
        payment.requirements,
      );
      if (result.state === "settled") {
        const receipt = { success: true, transaction: result.transaction, network, payer: payment.payer };
        return { state: "settled", receipt };
      }
      if (result.state === "not_settled") return result;
      reason = result.reason;
    }
    // Settling again is safe where the chain itself refuses a second use: an EIP-3009 nonce, a Solana message.
    if (!retry || !/^(evm|svm)\|/.test(paymentIdentity(payment.payload))) return { state: "unknown", reason };
    try {
      const again = await this.deps.facilitator.settle(payment.payload, payment.requirements);
      if (again.success) return { state: "settled", receipt: again };
      reason = `settling again failed: ${again.errorReason ?? "unknown"}; the first attempt may have landed`;
    } catch (error) {
      reason = `settling again failed: ${(error as Error).message}`;
    }
    return { state: "unknown", reason };
  }

  spentUntilMs(payment: VerifiedJsonPayment, nowMs: number): number {
    return spentUntilMs(payment.payload, nowMs, this.deps.spentTtlMs);
  }

  paidEvent(route: PricedRoute, verified: Verified<VerifiedJsonPayment>, receipt: SettleResponse): PaidEvent {
    const { requirements } = verified.payment;
    return {
      payer: receipt.payer ?? verified.payer,
      amount: requirements.amount,
      asset: requirements.asset,
      network: requirements.network,
      payTo: requirements.payTo,
      route: route.key,
      transaction: receipt.transaction,
    };
  }

  markPaid(res: ResponseWriter, receipt: SettleResponse): void {
    markPaid(res, receipt);
  }
}

/** A `settlement_pending` answer that names the transaction it sent (a hash, not an empty string). */
function isPendingWithTransaction(settlement: SettleResponse): boolean {
  return (
    settlement.errorReason === "settlement_pending" && /^0x[0-9a-fA-F]{64}$/.test(settlement.transaction)
  );
}
