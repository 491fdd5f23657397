import { GatewayError } from "../../protocol/errors.js";

/** Seconds a payer is told to wait before retrying with the same payment. */
export const SETTLEMENT_UNKNOWN_RETRY_SECONDS = 5;

/**
 * A `/settle` timed out or was cut and the chain could not (yet) tell whether the money moved: the
 * payment stays reserved and the response is kept, so a retry with the same payment gets it once settled.
 */
export class SettlementUnknownError extends GatewayError {
  constructor(reason: string, options: { expiresAtMs?: number; cause?: unknown } = {}) {
    super(
      "settlement_unknown",
      "the settlement's outcome is not known yet: retry with the same PAYMENT-SIGNATURE (you will not be charged twice)",
      {
        details: {
          reason,
          ...(options.expiresAtMs === undefined
            ? {}
            : { retryUntil: new Date(options.expiresAtMs).toISOString() }),
        },
        cause: options.cause,
        retryAfterSeconds: SETTLEMENT_UNKNOWN_RETRY_SECONDS,
      },
    );
  }
}

/** Whether a failed `/settle` may still have moved money: it timed out, was cut, or failed on the facilitator's side. */
export function isUnknownSettleOutcome(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  if (error.code === "facilitator_unavailable") return error.details.reason !== "unreachable";
  return error.code === "facilitator_error" && error.details.reason === "malformed";
}
