import type { Logger } from "../../common/Logger.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PaywallObserver } from "./PaywallObserver.js";

/**
 * Give a reservation back. If the ledger cannot (Redis down), the reservation simply expires after
 * `reservationTtlMs`: the failure is counted and logged, never thrown, so a release can run unawaited.
 */
export async function releaseReservation(
  deps: { ledger: PaymentLedger; logger: Logger; observer?: PaywallObserver | undefined },
  id: string,
  token: string,
): Promise<void> {
  try {
    await deps.ledger.release(id, token);
  } catch (error) {
    deps.observer?.ledgerError?.("release");
    deps.logger.warn({ err: error }, "the ledger could not release a reservation; it will expire");
  }
}
