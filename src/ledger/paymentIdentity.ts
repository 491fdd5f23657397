import { sha256Hex } from "../common/digests.js";
import {
  EVM_AUTHORIZATION_SCHEMES,
  isEvmNetwork,
  isSvmNetwork,
  type PaymentPayload,
} from "../protocol/schemas.js";
import { svmMessageOf } from "../protocol/svmTransaction.js";
import { canonicalJson } from "../protocol/canonicalJson.js";
import { parseEvmExactPayload } from "../protocol/parseEvmExactPayload.js";

/**
 * The identity one payment is known by in the ledger (docs/middleware.md, "Settlement"): for an EVM
 * EIP-3009 authorization `(network, asset, from, nonce)` lower-cased, which is what the token
 * contract itself refuses to use twice; for a Solana `exact` transaction `(network, SHA-256 of its message)`:
 * what every signature covers and the chain executes once, however the transaction's signatures are
 * re-encoded or tampered with; otherwise the SHA-256 of the canonical JSON of `payload`.
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
  if (accepted.scheme === "exact" && isSvmNetwork(accepted.network)) {
    const transaction = (payment.payload as { transaction?: unknown }).transaction;
    const message = typeof transaction === "string" ? svmMessageOf(transaction) : undefined;
    if (message) {
      const digest = sha256Hex(message);
      return ["svm", accepted.network, digest].join("|");
    }
  }
  return `sha256|${sha256Hex(canonicalJson(payment.payload))}`;
}

/** Until when a spent payment must be remembered: its `validBefore` (plus a minute of skew), or the default. */
export function spentUntilMs(payment: PaymentPayload, nowMs: number, defaultTtlMs: number): number {
  if (!isEvmNetwork(payment.accepted.network)) return nowMs + defaultTtlMs;
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
