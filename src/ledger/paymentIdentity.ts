import { canonicalJson } from "../protocol/canonicalJson.js";
import { createHash } from "node:crypto";
import { EVM_AUTHORIZATION_SCHEMES, isEvmNetwork, type PaymentPayload } from "../protocol/schemas.js";
import { parseEvmExactPayload } from "../protocol/parseEvmExactPayload.js";

/**
 * The identity one payment is known by in the ledger (docs/middleware.md, "Settlement"): for an EVM
 * EIP-3009 authorization `(network, asset, from, nonce)` lower-cased, which is what the token
 * contract itself refuses to use twice; otherwise the SHA-256 of the canonical JSON of `payload`.
 */
export function paymentIdentity(payment: PaymentPayload): string {
  const { accepted } = payment;
  if (EVM_AUTHORIZATION_SCHEMES.has(accepted.scheme) && isEvmNetwork(accepted.network)) {
    const evm = parseEvmExactPayload(payment.payload);
    if (evm.success) {
      const { from, nonce } = evm.data.authorization;
      return ["evm", accepted.network, accepted.asset, from, nonce].join("|").toLowerCase();
    }
  }
  return `sha256|${createHash("sha256").update(canonicalJson(payment.payload)).digest("hex")}`;
}

/** Until when a spent payment must be remembered: its `validBefore` (plus a minute of skew), or the default. */
export function spentUntilMs(payment: PaymentPayload, nowMs: number, defaultTtlMs: number): number {
  const evm = parseEvmExactPayload(payment.payload);
  if (!evm.success) return nowMs + defaultTtlMs;
  const validBeforeMs = Number(evm.data.authorization.validBefore) * 1000;
  return Number.isFinite(validBeforeMs) ? Math.max(validBeforeMs, nowMs) + 60_000 : nowMs + defaultTtlMs;
}

/** The payer an EVM authorization names, when the facilitator did not say. */
export function payerOf(payment: PaymentPayload): string {
  const authorization = (payment.payload as { authorization?: { from?: unknown } }).authorization;
  return typeof authorization?.from === "string" ? authorization.from : "unknown";
}
