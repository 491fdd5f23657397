import type { Facilitator } from "../../facilitator/Facilitator.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { payerOf, paymentIdentity } from "../../ledger/paymentIdentity.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaymentPayload } from "../../protocol/schemas.js";
import { matchRequirements } from "../matchRequirements.js";
import type { PaywallObserver } from "../PaywallObserver.js";
import type { Verified } from "../Verified.js";
import { reserveOrRefuse } from "./Exchange.js";
import { releaseReservation } from "../releaseReservation.js";
import type { Logger } from "../../common/Logger.js";

export interface VerifyDeps {
  facilitator: Facilitator;
  ledger: PaymentLedger;
  observer: PaywallObserver;
  logger: Logger;
  reservationTtlMs: number;
}

/** Match, reserve and verify a payment; the reservation is released on every failure. */
export async function verifyPayment(
  deps: VerifyDeps,
  route: PricedRoute,
  payment: PaymentPayload,
  id: string = paymentIdentity(payment),
): Promise<Verified> {
  const matched = matchRequirements(route.requirements, payment);
  if (!matched.ok) {
    throw new GatewayError(
      "payment_mismatch",
      `the payment does not match this route: ${matched.field} differs`,
      {
        details: { field: matched.field, expected: matched.expected, received: matched.received },
      },
    );
  }
  const token = await reserveOrRefuse(deps, id, deps.reservationTtlMs, "payment");
  const started = performance.now();
  try {
    const verdict = await deps.facilitator.verify(payment, matched.requirements);
    deps.observer.verifyLatency?.(performance.now() - started, verdict.isValid);
    if (!verdict.isValid) {
      throw new GatewayError(
        "verification_failed",
        `the facilitator rejected the payment: ${verdict.invalidReason}`,
        {
          details: {
            reason: verdict.invalidReason,
            reasonMessage: verdict.invalidMessage,
            payer: verdict.payer,
          },
        },
      );
    }
    const payer = verdict.payer ?? payerOf(payment);
    return { payment, requirements: matched.requirements, id, token, payer };
  } catch (error) {
    if (error instanceof GatewayError && error.code.startsWith("facilitator_")) {
      deps.observer.facilitatorError?.("verify", error.code);
    }
    await releaseReservation(deps, id, token);
    throw error;
  }
}
