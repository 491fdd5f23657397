import type { SettleResponse } from "../../protocol/schemas.js";
import type { Exchange } from "../flow/Exchange.js";
import { releaseReservation } from "../flow/releaseReservation.js";
import type { ServeHeldDeps } from "../flow/serveHeld.js";
import type { HeldResponse } from "../responses/ResponsePort.js";
import type { PaymentWire, Verified } from "../wires/PaymentWire.js";
import { meterUsage, type MeteredSettlement } from "./meterUsage.js";

/** {@link meterUsage}; when the report is refused, the payment is released and the answer dropped first. */
export async function meterOrRelease(
  deps: ServeHeldDeps,
  exchange: Exchange,
  verified: Verified,
  held: HeldResponse,
): Promise<MeteredSettlement> {
  try {
    return meterUsage(exchange.route, verified, held, exchange.res);
  } catch (error) {
    await releaseReservation(deps, verified.id, verified.token);
    held.discard();
    throw error;
  }
}

/**
 * A metered answer that used nothing: served, nothing settled, the authorization released (it moved no
 * money, so it may pay for another answer), with a `PAYMENT-RESPONSE` that says so (`amount` "0").
 */
export async function serveUnused(
  deps: ServeHeldDeps,
  exchange: Exchange,
  wire: PaymentWire,
  verified: Verified,
  held: HeldResponse,
): Promise<void> {
  await releaseReservation(deps, verified.id, verified.token);
  const { requirements } = verified.payment as { requirements: { network: string } };
  const receipt: SettleResponse = {
    success: true,
    transaction: "",
    network: requirements.network as SettleResponse["network"],
    payer: verified.payer,
    amount: "0",
  };
  wire.markPaid(exchange.res, receipt);
  Object.assign(exchange.info, { outcome: "paid", payer: verified.payer, amount: "0" });
  deps.observer.outcome?.(exchange.route.key, "paid");
  deps.logger.info(
    { route: exchange.route.key, payer: verified.payer },
    "metered answer used nothing; not settled",
  );
  held.release();
}
