import { randomBytes } from "node:crypto";
import { encodeBase64Json } from "../../src/protocol/base64Json.js";
import type { PaymentPayload, PaymentRequirements } from "../../src/protocol/schemas.js";

export const PAY_TO = "0x2222222222222222222222222222222222222222";
export const PAYER = "0x3333333333333333333333333333333333333333";
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/** Requirements as the paywall builds them for a Base Sepolia USDC price. */
export function usdcRequirements(
  amount: string,
  overrides: Partial<PaymentRequirements> = {},
): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:84532",
    amount,
    asset: BASE_SEPOLIA_USDC,
    payTo: PAY_TO,
    maxTimeoutSeconds: 300,
    extra: { name: "USDC", version: "2" },
    ...overrides,
  };
}

/** A well-formed EVM exact payment (the signature is not real: the facilitator double decides validity). */
export function evmPayment(
  accepted: PaymentRequirements,
  authorization: Record<string, string> = {},
): PaymentPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    x402Version: 2,
    accepted,
    payload: {
      signature: `0x${"11".repeat(65)}`,
      authorization: {
        from: PAYER,
        to: accepted.payTo,
        value: accepted.amount,
        validAfter: String(now - 60),
        validBefore: String(now + 600),
        nonce: `0x${randomBytes(32).toString("hex")}`,
        ...authorization,
      },
    },
  };
}

export const header = (payment: unknown): string => encodeBase64Json(payment);
