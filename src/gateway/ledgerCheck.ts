import { describeTopology } from "../common/openSharedRedis.js";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import type { ReadinessCheck } from "./checkReadiness.js";

/** Longest `/readyz` waits for the ledger, in ms (less when `ledger.commandTimeoutMs` is shorter). */
export const LEDGER_CHECK_TIMEOUT_MS = 1_000;

/**
 * The `ledger` check of `/readyz`: a round trip through the paywall's own ledger connection (a Redis
 * ledger; one in memory has nothing to check, so no check). A shared ledger that cannot answer fails
 * every paid request with `503 ledger_unavailable`, so it makes the gateway not ready.
 */
export async function ledgerCheck(
  config: GatewayConfig,
  health: ((timeoutMs: number) => Promise<LedgerHealth | undefined>) | undefined,
): Promise<ReadinessCheck | undefined> {
  if (config.ledger.type !== "redis" || health === undefined) return undefined;
  const timeoutMs = Math.min(LEDGER_CHECK_TIMEOUT_MS, config.ledger.commandTimeoutMs ?? Infinity);
  const url = describeTopology(config.ledger);
  const found = await health(timeoutMs).catch((error: unknown): LedgerHealth => ({
    ok: false,
    reason: "error",
    detail: (error as Error).message,
  }));
  if (found === undefined || found.ok) return { name: "ledger", ok: true, url };
  return { name: "ledger", ok: false, url, error: found.detail, reason: found.reason };
}
