import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaywallObserver } from "./PaywallObserver.js";
import { reserveOrRefuse } from "./Exchange.js";
import { releaseReservation } from "./releaseReservation.js";
import type { Logger } from "../../common/Logger.js";
import type { PaymentWire, Verified } from "../wires/PaymentWire.js";

export interface VerifyDeps {
  ledger: PaymentLedger;
  observer: PaywallObserver;
  logger: Logger;
  reservationTtlMs: number;
}

/**
 * Reserve a checked payment under `id` and have its format verify it (ledger charges, then the
 * facilitator); the reservation, and every charge made with it, is released on every failure.
 */
export async function verifyPayment(
  deps: VerifyDeps,
  wire: PaymentWire,
  checked: unknown,
  id: string,
  header: string,
): Promise<Verified> {
  const what = wire.label === "x402" ? "payment" : "payment intent";
  const token = await reserveOrRefuse(deps, id, deps.reservationTtlMs, what);
  const started = performance.now();
  try {
    const { payment, payer } = await wire.verify(checked, id);
    deps.observer.verifyLatency?.(performance.now() - started, true);
    return { payment, id, token, payer, header };
  } catch (error) {
    if (error instanceof GatewayError) {
      if (error.code === "verification_failed")
        deps.observer.verifyLatency?.(performance.now() - started, false);
      if (error.code.startsWith("facilitator_")) deps.observer.facilitatorError?.("verify", error.code);
    }
    await releaseReservation(deps, id, token);
    throw error;
  }
}
