import type { Logger } from "../../common/Logger.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PaymentRequirements } from "../../protocol/schemas.js";
import type { PaidEvent } from "../setup/options.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import type { Offer } from "../responses/respond.js";
import type { PaymentWire } from "../wires/PaymentWire.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import type { ResponsePort } from "../responses/ResponsePort.js";
import type { VerifyContext } from "./PaymentHooks.js";

/** One priced request on its way through the payment flow. */
export interface Exchange {
  req: RequestFacts;
  /** The response: the flow answers on it, or holds what the handler answers on it. */
  res: ResponsePort;
  route: PricedRoute;
  /** The priced path (no query). */
  path: string;
  info: PaywallRequestInfo;
  /** The URL offers name (`resource.url`) and sign-in proofs must be for. */
  resourceUrl: string;
  offer: () => Promise<Offer>;
  /**
   * The JSON payment options of this request: the route's, or, for a route with `price`/`payTo` functions,
   * `undefined` until computed for this request (a paid retry is matched against its own, never the offer's).
   */
  requirements: PaymentRequirements[] | undefined;
  /** Whether the client hung up before its response was complete. */
  gone: () => boolean;
  /** The payment format this request is answered in (base64 JSON until the client chose CBOR). */
  wire: PaymentWire;
  /** What the verify and settle hooks see, once the payment is checked. */
  hookContext?: VerifyContext | undefined;
}

/** The exchange's hook context (set once its payment is checked). */
export function hookContextOf(exchange: Exchange): VerifyContext {
  if (exchange.hookContext === undefined) throw new Error("the payment's hook context was not built");
  return exchange.hookContext;
}

/** Hand the request on to the handler (or upstream) the flow guards. */
export type Next = () => void;

export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", "the paywall failed unexpectedly; nothing was settled", {
    cause: error,
  });
}

/** Run a user hook; one that throws is logged, never allowed to change the answer. */
export function safely(hook: () => void, logger: Logger): void {
  try {
    hook();
  } catch (error) {
    logger.error({ err: error }, "a paywall hook threw");
  }
}

/** Record a settled payment as paid: the request's outcome, the metric, the log line, `onPaid`. */
export function reportPaid(
  deps: {
    logger: Logger;
    observer: PaywallObserver;
    onPaid?: ((event: PaidEvent) => void) | undefined;
  },
  info: PaywallRequestInfo,
  paid: PaidEvent,
  message: string,
): void {
  info.outcome = "paid";
  info.payer = paid.payer;
  info.amount = paid.amount;
  info.transaction = paid.transaction;
  deps.observer.outcome?.(paid.route, "paid");
  // Loggers serialise at once (pino does), so the event itself is logged, not a copy.
  deps.logger.info(paid, message);
  safely(() => deps.onPaid?.(paid), deps.logger);
}

/** Reserve a payment in the ledger, or refuse it: already spent (402) or in use elsewhere (409). */
export async function reserveOrRefuse(
  deps: { ledger: PaymentLedger; observer: PaywallObserver },
  id: string,
  holdMs: number,
  what: "payment" | "payment intent",
): Promise<string> {
  let reservation: Awaited<ReturnType<PaymentLedger["reserve"]>>;
  try {
    reservation = await deps.ledger.reserve(id, { holdMs });
  } catch (error) {
    // A ledger that cannot answer fails closed: nothing is verified or served.
    deps.observer.ledgerError?.("reserve");
    throw new GatewayError("ledger_unavailable", "the payment ledger cannot be reached; retry later", {
      cause: error,
      retryAfterSeconds: 1,
    });
  }
  if (reservation.status === "spent") {
    throw new GatewayError("payment_already_used", `this ${what} has already paid for a response`);
  }
  if (reservation.status === "in_progress") {
    throw new GatewayError(
      "payment_in_progress",
      `this ${what} is being used by another request; retry later`,
      { retryAfterSeconds: 1 },
    );
  }
  return reservation.token;
}
