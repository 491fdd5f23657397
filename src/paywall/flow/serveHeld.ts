import type { Logger } from "../../common/Logger.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { HeldResponse, ResponsePort } from "../responses/ResponsePort.js";
import type { PaywallObserver, PaywallRequestInfo } from "./PaywallObserver.js";
import { releaseReservation } from "./releaseReservation.js";

export interface ServeHeldDeps {
  ledger: PaymentLedger;
  logger: Logger;
  observer: PaywallObserver;
  maxHeldResponseBytes: number;
}

/** What `serveHeld` settles for: the reserved payment, and what to do when the client is gone. */
export interface HeldPayment {
  id: string;
  token: string;
  /** Checked once the answer is complete; when true, `abandon` runs instead of settling. */
  gone?: () => boolean;
  abandon?: () => Promise<void>;
}

/**
 * Settle-after: run the handler with its answer held. Resolves the held answer when it is a complete
 * 2xx to settle; `undefined` when it is dealt with (client gone, or not a 2xx: passed on as it is, the
 * payment released). Throws `response_too_large` past the limit, the payment released.
 */
export async function serveHeld(
  deps: ServeHeldDeps,
  exchange: { res: ResponsePort; route: PricedRoute; info: PaywallRequestInfo },
  payment: HeldPayment,
  next: () => void,
): Promise<HeldResponse | undefined> {
  const { res, route, info } = exchange;
  const held = res.hold(deps.maxHeldResponseBytes);
  next();
  const outcome = await held.outcome;
  if (outcome.kind === "closed") {
    await releaseReservation(deps, payment.id, payment.token);
    deps.logger.info({ route: route.key }, "client went away before the response was complete; not settled");
    return undefined;
  }
  if (payment.gone?.()) {
    held.discard();
    await payment.abandon?.();
    return undefined;
  }
  deps.observer.heldBytes?.(outcome.bytes);
  if (outcome.kind === "overflow") {
    await releaseReservation(deps, payment.id, payment.token);
    held.discard();
    throw new GatewayError("response_too_large", `the response is over ${deps.maxHeldResponseBytes} bytes`, {
      details: { limit: deps.maxHeldResponseBytes },
    });
  }
  if (outcome.status < 200 || outcome.status > 299) {
    await releaseReservation(deps, payment.id, payment.token);
    Object.assign(info, { outcome: "upstream_failed", code: String(outcome.status) });
    deps.observer.outcome?.(route.key, "upstream_failed", String(outcome.status));
    held.release();
    return undefined;
  }
  return held;
}
