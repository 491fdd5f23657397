import type { ResponseWriter } from "../responses/ResponsePort.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { GatewayError } from "../../protocol/errors.js";
import type { PaidEvent } from "../setup/options.js";
import type { Exchange } from "../flow/Exchange.js";
import type { SettleResponse } from "../../protocol/schemas.js";
import type { HookSettleResponse, HookVerifyResponse, VerifyContext } from "../flow/PaymentHooks.js";

/** What hooks see of a payment in this format (docs/hooks.md). */
export type WireHookView = Pick<VerifyContext, "format" | "paymentPayload" | "requirements" | "cbor">;

/** What a facilitator answered to `/settle`: the format's receipt, or the refusal to throw (payment released). */
export type WireSettlement<R> = { ok: true; receipt: R } | { ok: false; error: GatewayError };

/** What is known of a settlement whose `/settle` timed out or was cut. */
export type WireSettlementCheck<R> =
  /** It happened: serve with this receipt. */
  | { state: "settled"; receipt: R }
  /** It did not and never will: safe to release the payment. */
  | { state: "not_settled"; reason: string }
  /** Cannot tell (yet). */
  | { state: "unknown"; reason: string };

/**
 * What differs between the two payment formats (base64 JSON and `application/x402+cbor`); the money path
 * itself (match → verify → reserve → hold → settle → serve or release, unknown outcomes, hang-ups, the
 * ledger) is written once, in {@link PricedRequests}, and runs the same for both.
 *
 * `D` is a decoded `PAYMENT-SIGNATURE`, `C` one the gateway checked against the route, `P` a payment the
 * facilitator verified, `R` a settlement's receipt.
 */
export interface PaymentWire<D = unknown, C = unknown, P = unknown, R = unknown> {
  /** How logs and paid events name the format. */
  readonly label: "x402" | "x402+cbor";
  /** Answer an unpaid priced request with this format's offer. */
  offerUnpaid(exchange: Exchange): Promise<void> | void;
  /** Answer a refusal in this format (a 402 carries the offer again). */
  refuse(exchange: Exchange, error: GatewayError): Promise<void> | void;
  /** Decode `PAYMENT-SIGNATURE`; throws `header_too_large` or `invalid_payment`. */
  decode(header: string): D;
  /** The identity the ledger knows the payment by: what may pay once. */
  identity(decoded: D): string;
  /**
   * Every check the gateway makes itself, before anything is reserved; throws the refusal. May be async
   * (a CBOR intent whose signer is a contract account is checked through the layer-2 node).
   */
  check(exchange: Exchange, decoded: D): C | Promise<C>;
  /**
   * With the payment reserved under `id`: what the format charges in the ledger beside it (CBOR grants).
   * Throws the refusal; the caller releases the reservation (and with it any charge).
   */
  charge?(checked: C, id: string): Promise<void>;
  /** The facilitator's verdict; throws a GatewayError when it cannot answer. */
  askVerify(checked: C): Promise<HookVerifyResponse>;
  /** The payment a valid verdict (the facilitator's, or a hook's) admits, and who pays. */
  admit(checked: C, verdict: HookVerifyResponse): { payment: P; payer: string };
  /** What verify and settle hooks see of the payment. */
  hookView(checked: C): WireHookView;
  /** A settlement a hook gave (`skip`, `recovered`) as this format's: a CBOR one needs its signed receipt. */
  hookSettlement(payment: P, result: HookSettleResponse): WireSettlement<R>;
  /** A settlement a hook aborted before `/settle`: the 402 to answer (nothing was settled). */
  settlementRefused(payment: P, reason: string, message?: string): GatewayError;
  /** A receipt as the official `SettleResponse` (what `onAfterSettle` is given). */
  settleResponseOf(payment: P, receipt: R): SettleResponse;
  /** `/settle`. Throws a GatewayError when the facilitator cannot answer (the outcome may be unknown). */
  settle(payment: P): Promise<WireSettlement<R>>;
  /** Whether {@link checkSettlement} can ever say more than `unknown` for this payment. */
  canCheck(payment: P): boolean;
  /**
   * Find out what a cut `/settle` did. `retry` is true when the payer came back with the same payment:
   * a format whose settle is safe to repeat (EIP-3009: the token refuses a nonce twice) may settle again.
   */
  checkSettlement(payment: P, retry: boolean): Promise<WireSettlementCheck<R>>;
  /** Until when a settled payment must stay spent in the ledger, so it cannot pay again. */
  spentUntilMs(payment: P, nowMs: number): number;
  /** The paid event of a settled payment. */
  paidEvent(route: PricedRoute, verified: Verified<P>, receipt: R): PaidEvent;
  /** Put the receipt on the paid response. */
  markPaid(res: ResponseWriter, receipt: R): void;
  /** Called once the payment is verified, before the handler runs: drop what described the payment, not a body. */
  beforeServing?(exchange: Exchange): void;
}

/** A payment matched to its route, reserved in the ledger (`token`) and verified by its facilitator. */
export interface Verified<P = unknown> {
  payment: P;
  /** Its identity in the ledger. */
  id: string;
  token: string;
  payer: string;
  /** The exact `PAYMENT-SIGNATURE` it came in: a kept response is served only to these bytes. */
  header: string;
  /** An `onAfterVerify` hook asked to answer this without the handler: settle, then send this body. */
  skipHandler?: { contentType?: string | undefined; body?: unknown } | undefined;
}
