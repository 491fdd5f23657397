import { GatewayError } from "../../protocol/errors.js";
import type { SettleResponse } from "../../protocol/schemas.js";

/** A settlement answered `success: false`: a 402 that carries the facilitator's answer as `PAYMENT-RESPONSE`. */
export class SettlementFailedError extends GatewayError {
  constructor(readonly settlement: SettleResponse) {
    super("settlement_failed", `settlement failed: ${settlement.errorReason ?? "unknown reason"}`, {
      details: { reason: settlement.errorReason, reasonMessage: settlement.errorMessage },
    });
  }
}
