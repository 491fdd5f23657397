import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from "../protocol/schemas.js";

/**
 * What the paywall needs from an x402 facilitator. An invalid payment is a normal answer
 * (`isValid: false` / `success: false`); a facilitator that cannot answer throws a
 * {@link GatewayError} with code `facilitator_unavailable` or `facilitator_error`.
 */
export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  supported(): Promise<SupportedResponse>;
}

export function isFacilitator(value: unknown): value is Facilitator {
  const candidate = value as Partial<Facilitator> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.verify === "function" &&
    typeof candidate.settle === "function" &&
    typeof candidate.supported === "function"
  );
}
