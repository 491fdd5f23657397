import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaywallObserver } from "./PaywallObserver.js";
import { reserveOrRefuse } from "./Exchange.js";
import { releaseReservation } from "./releaseReservation.js";
import type { Logger } from "../../common/Logger.js";
import type { PaymentWire, Verified } from "../wires/PaymentWire.js";
import type { HookRunner } from "./HookRunner.js";
import type { VerifyContext } from "./PaymentHooks.js";

export interface VerifyDeps {
  hooks: HookRunner;
  ledger: PaymentLedger;
  observer: PaywallObserver;
  logger: Logger;
  reservationTtlMs: number;
}

/**
 * Reserve a checked payment under `id` and have its format verify it (ledger charges, then the
 * facilitator, with the verify hooks around it); the reservation, and every charge made with it, is
 * released on every failure. A verdict whose hooks asked to skip the handler carries `skipHandler`.
 */
export async function verifyPayment(
  deps: VerifyDeps,
  wire: PaymentWire,
  checked: unknown,
  id: string,
  header: string,
  hookContext: VerifyContext,
): Promise<Verified> {
  const what = wire.label === "x402" ? "payment" : "payment intent";
  const token = await reserveOrRefuse(deps, id, deps.reservationTtlMs, what);
  const started = performance.now();
  try {
    await wire.charge?.(checked, id);
    const verdict = await deps.hooks.verify(hookContext, () => wire.askVerify(checked));
    if (!verdict.isValid) {
      const reason = verdict.invalidReason ?? "invalid";
      throw new GatewayError("verification_failed", `the facilitator rejected the payment: ${reason}`, {
        details: {
          reason,
          ...(verdict.invalidMessage === undefined ? {} : { reasonMessage: verdict.invalidMessage }),
          ...(verdict.payer === undefined ? {} : { payer: verdict.payer }),
        },
      });
    }
    const { payment, payer } = wire.admit(checked, verdict);
    deps.observer.verifyLatency?.(performance.now() - started, true);
    return { payment, id, token, payer, header, skipHandler: verdict.skipHandler };
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
