import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { PaywallObserver } from "../paywall/flow/PaywallObserver.js";

const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface GatewayMetrics {
  /** This gateway's own registry (never prom-client's global one, so several gateways can live in one process). */
  registry: Registry;
  /** Feeds verify/settle latency, facilitator errors, held bytes and the recognition cache's counters from `x402()`. */
  observer: PaywallObserver;
  /** One finished request: route key (or `unpriced`), paywall outcome, error or upstream status code. */
  request(route: string, outcome: string, code: string, seconds: number): void;
  upstreamError(upstream: string, code: string): void;
}

/** The gateway's Prometheus metrics, with Node's process metrics (CPU, memory, event loop lag, GC) beside them. */
export function createGatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "x402_gateway_requests_total",
    help: "Requests by priced route (or unpriced), paywall outcome (free, offered, paid, recognized, rejected, upstream_failed) and code",
    labelNames: ["route", "outcome", "code"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "x402_gateway_request_duration_seconds",
    help: "Time from request to response end, by paywall outcome",
    labelNames: ["outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const verify = new Histogram({
    name: "x402_gateway_verify_duration_seconds",
    help: "Facilitator /verify latency, by whether the payment was valid",
    labelNames: ["ok"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const settle = new Histogram({
    name: "x402_gateway_settle_duration_seconds",
    help: "Facilitator /settle latency, by whether the settlement succeeded",
    labelNames: ["ok"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const facilitatorErrors = new Counter({
    name: "x402_gateway_facilitator_errors_total",
    help: "Facilitator calls that failed (unreachable, timeout, 5xx, malformed), by endpoint and code",
    labelNames: ["endpoint", "code"],
    registers: [registry],
  });
  const extensionResponses = new Counter({
    name: "x402_gateway_facilitator_extension_responses_total",
    help: "What the facilitator's EXTENSION-RESPONSES said (e.g. a Bazaar listing's status), by endpoint, extension and status",
    labelNames: ["endpoint", "extension", "status"],
    registers: [registry],
  });
  const held = new Histogram({
    name: "x402_gateway_held_response_bytes",
    help: "Size of responses held until settlement",
    buckets: [1024, 16 * 1024, 128 * 1024, 1024 * 1024, 8 * 1024 * 1024],
    registers: [registry],
  });
  const ledgerErrors = new Counter({
    name: "x402_gateway_ledger_errors_total",
    help: "Payment ledger (Redis) operations that failed, by operation; a failed reserve is answered 503 ledger_unavailable",
    labelNames: ["operation"],
    registers: [registry],
  });
  const ledgerWait = new Histogram({
    name: "x402_gateway_ledger_wait_duration_seconds",
    help: "Redis WAIT for replicas after a ledger write (ledger.wait), by operation and whether enough replicas acknowledged",
    labelNames: ["operation", "acknowledged"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const ledgerWaitTimeouts = new Counter({
    name: "x402_gateway_ledger_wait_timeouts_total",
    help: "Ledger writes no replica acknowledged in time, by operation; a reserve or charge is answered 503 ledger_unavailable",
    labelNames: ["operation"],
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: "x402_gateway_upstream_errors_total",
    help: "Upstream failures by upstream prefix and code (upstream_unavailable, upstream_timeout, aborted)",
    labelNames: ["upstream", "code"],
    registers: [registry],
  });

  const recognitionLookups = new Counter({
    name: "x402_gateway_recognition_lookups_total",
    help: "Recognition cache lookups: hit, miss, or coalesced into a call already in flight",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const recognitionRpc = new Histogram({
    name: "x402_gateway_recognition_rpc_duration_seconds",
    help: "est_ouverte calls on Starknet, by outcome (recognized, not_recognized, error) and error kind",
    labelNames: ["outcome", "error"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const recognitionStale = new Counter({
    name: "x402_gateway_recognition_stale_served_total",
    help: "Positive recognition answers served stale because the chain could not be asked",
    registers: [registry],
  });

  const revocations = new Counter({
    name: "x402_gateway_revocations_total",
    help: "Payer revocations received: made here (local) or heard from another instance (peer); failed: Redis could not share it",
    labelNames: ["origin", "outcome"],
    registers: [registry],
  });

  return {
    registry,
    observer: {
      revocation: (origin, outcome) => revocations.inc({ origin, outcome }),
      lookup: (outcome) => recognitionLookups.inc({ outcome }),
      rpcCall: (ms, outcome, errorKind) =>
        recognitionRpc.observe({ outcome, error: errorKind ?? "" }, ms / 1000),
      staleServed: () => recognitionStale.inc(),
      verifyLatency: (ms, ok) => verify.observe({ ok: String(ok) }, ms / 1000),
      settleLatency: (ms, ok) => settle.observe({ ok: String(ok) }, ms / 1000),
      facilitatorError: (endpoint, code) => facilitatorErrors.inc({ endpoint, code }),
      heldBytes: (bytes) => held.observe(bytes),
      // The facilitator names both: anything unusual is counted as "other", so it cannot grow the series.
      extensionResponse: (endpoint, extension, status) =>
        extensionResponses.inc({
          endpoint,
          extension: /^[a-z0-9][a-z0-9-]{0,39}$/i.test(extension) ? extension : "other",
          status: /^[a-z0-9_-]{0,40}$/i.test(status) ? status : "other",
        }),
      ledgerError: (operation) => ledgerErrors.inc({ operation }),
      ledgerWait: (operation, ms, acknowledged) => {
        ledgerWait.observe({ operation, acknowledged: String(acknowledged) }, ms / 1000);
        if (!acknowledged) ledgerWaitTimeouts.inc({ operation });
      },
    },
    request(route, outcome, code, seconds) {
      requests.inc({ route, outcome, code });
      duration.observe({ outcome }, seconds);
    },
    upstreamError: (upstream, code) => upstreamErrors.inc({ upstream, code }),
  };
}
