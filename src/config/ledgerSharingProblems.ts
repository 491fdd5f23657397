import type { GatewayConfig } from "./gatewayConfigSchema.js";
import { recognitionsOf } from "../recognition/recognitionsOf.js";

/** What `serve` refuses and what it warns about, given the config and `--workers`. */
export interface LedgerSharingProblems {
  /** Settings `serve` will not start with. */
  refusals: string[];
  /** Settings it starts with, printed as warnings: they are safe on one instance only. */
  warnings: string[];
}

/**
 * The deployments that need a shared ledger (docs/gateway.md, "Which deployments must share a ledger"): more
 * than one worker is refused with a memory ledger (a payment could pay once per worker, a CBOR intent
 * replayed at another worker runs the upstream before settlement refuses it); recognition with one is a
 * warning (sign-in nonces and revocations stay in this process). `check-config` and `serve` both ask.
 */
export function ledgerSharingProblems(
  config: Pick<GatewayConfig, "ledger" | "recognition" | "routes">,
  workers: number,
): LedgerSharingProblems {
  const problems: LedgerSharingProblems = { refusals: [], warnings: [] };
  if (config.ledger.type !== "memory") return problems;
  if (workers > 1) {
    problems.refusals.push(
      `--workers ${workers} needs a shared ledger: set ledger: { type: redis, url: ... }. ` +
        "With one in-memory ledger per worker, a payment could pay once per worker.",
    );
  }
  if (recognitionsOf(config).length > 0) {
    problems.warnings.push(
      "recognition runs with ledger.type memory: sign-in nonces and revocations live in this process only, " +
        "so a second instance (or a restart) accepts a used nonce and forgets a revocation. " +
        "Run one instance, or set ledger: { type: redis, url: ... } shared by every instance.",
    );
  }
  return problems;
}
