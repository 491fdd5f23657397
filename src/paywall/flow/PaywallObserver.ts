/** How a priced request ended, for metrics and logs. */
export type PaywallOutcome =
  "free" | "offered" | "paid" | "recognized" | "pass" | "granted" | "rejected" | "upstream_failed";

import type { RecognitionObserver } from "../../recognition/RecognitionCache.js";
import type { RevocationObserver } from "../../recognition/RevokedPayers.js";

/**
 * Receives what the paywall measures; the proxy turns it into Prometheus metrics.
 * Every method is optional; none may throw.
 */
export interface PaywallObserver extends RecognitionObserver, RevocationObserver {
  outcome?(route: string, outcome: PaywallOutcome, code?: string): void;
  verifyLatency?(ms: number, ok: boolean): void;
  settleLatency?(ms: number, ok: boolean): void;
  facilitatorError?(endpoint: "verify" | "settle" | "supported", code: string): void;
  heldBytes?(bytes: number): void;
  /** A facilitator's `EXTENSION-RESPONSES` named an extension (e.g. `bazaar`) with this `status` (`""` if none). */
  extensionResponse?(endpoint: "verify" | "settle", extension: string, status: string): void;
  /** The payment ledger failed an operation (reserve, charge → 503 ledger_unavailable; release/spend are logged). */
  ledgerError?(operation: "reserve" | "charge" | "release" | "spend"): void;
  /**
   * A ledger write waited for its replicas (`ledger.wait`): how long, and whether enough acknowledged it
   * (a reserve or charge not acknowledged is answered 503 ledger_unavailable; a spend is served).
   */
  ledgerWait?(operation: "reserve" | "charge" | "spend", ms: number, acknowledged: boolean): void;
}

/** Per-request facts the middleware leaves in `res.locals.x402` for access logs. */
export interface PaywallRequestInfo {
  route: string;
  outcome: PaywallOutcome;
  code?: string;
  payer?: string;
  amount?: string;
  transaction?: string;
}
