import type { Logger } from "pino";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import { checkReadiness } from "./checkReadiness.js";

/**
 * What `/readyz` tells anyone: each dependency's name (`facilitator`, `upstream <prefix>`, `ledger`,
 * `recognition`…), whether it is up, and a failed one's coarse reason (`unreachable`, `timeout`, `tls`,
 * `status_503`, `error`…); URLs and error texts go to the logs only.
 */
export interface PublicReadiness {
  ready: boolean;
  /** `advisory` checks are shown and do not count toward `ready`. */
  checks: Array<{ name: string; ok: boolean; reason?: string; advisory?: true }>;
}

/** How long a probe result is reused, in ms: `/readyz` cannot be used to flood the dependencies (Redis too). */
export const READINESS_CACHE_MS = 1_500;

/**
 * Probe the dependencies at most once per {@link READINESS_CACHE_MS} (concurrent calls share one probe),
 * logging the details of a failed check and answering only statuses by name. Only the first call waits
 * for a probe: later ones answer the last result at once and, once it is older than the window, start
 * the next probe in the background, so a load balancer's check (HAProxy's times out after its interval)
 * never waits on a slow dependency.
 */
export function createReadinessProbe(
  config: GatewayConfig,
  fetchImpl: typeof fetch,
  logger: Logger,
  options: {
    /** The paywall's ledger health check (`x402Node().ledgerHealth`). */
    ledgerHealth?: (timeoutMs: number) => Promise<LedgerHealth | undefined>;
    /**
     * Checks shown in `/readyz` that do not decide readiness (the payer recorder's health: a node it
     * cannot write to delays recordings, not payments).
     */
    advisory?: () => Array<{ name: string; ok: boolean; reason?: string }>;
    now?: () => number;
  } = {},
): () => Promise<PublicReadiness> {
  const now = options.now ?? Date.now;
  let last: { at: number; result: PublicReadiness } | undefined;
  let running: Promise<PublicReadiness> | undefined;
  const probe = async (): Promise<PublicReadiness> => {
    const readiness = await checkReadiness(config, fetchImpl, options.ledgerHealth);
    for (const check of readiness.checks.filter((c) => !c.ok)) {
      logger.warn(
        { check: check.name, url: check.url, status: check.status, error: check.error },
        "not ready",
      );
    }
    return {
      ready: readiness.ready,
      checks: readiness.checks.map(({ name, ok, reason }) => ({ name, ok, ...(ok ? {} : { reason }) })),
    };
  };
  const refresh = (): Promise<PublicReadiness> =>
    (running ??= probe()
      .then((result) => {
        last = { at: now(), result };
        return result;
      })
      .finally(() => {
        running = undefined;
      }));
  const withAdvisory = (result: PublicReadiness): PublicReadiness => {
    const advisory = options.advisory?.();
    if (advisory === undefined) return result;
    const shown = advisory.map(({ name, ok, reason }) => ({
      name,
      ok,
      advisory: true as const,
      ...(ok || reason === undefined ? {} : { reason }),
    }));
    return { ...result, checks: [...result.checks, ...shown] };
  };
  return () => {
    if (last === undefined) return refresh().then(withAdvisory);
    if (now() - last.at >= READINESS_CACHE_MS) void refresh().catch(() => undefined);
    return Promise.resolve(withAdvisory(last.result));
  };
}
