import type { GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import type { LocalStack } from "../../src/dev/startLocalStack.js";

export interface LocalGatewayConfigOptions {
  stack: LocalStack;
  /** Facilitator URL (a fault proxy in front of the stack's); default the stack's own. */
  facilitatorUrl?: string;
  upstreamUrl: string;
  /** Shared Redis ledger; without it the ledger is in memory. */
  redis?: { url: string; keyPrefix: string; commandTimeoutMs?: number };
  routes?: GatewayConfigInput["routes"];
  /** Public base URL, the same for every instance (offers and sign-in proofs name it). */
  publicUrl?: string;
  facilitator?: { timeoutMs?: number; settleTimeoutMs?: number };
  upstreamTimeoutMs?: number;
  recognition?: GatewayConfigInput["recognition"];
  drainTimeoutMs?: number;
  logLevel?: "info" | "warn" | "error" | "silent";
  /** Resolve unknown settlements on anvil (`rpcUrls`), waiting at most this long, in ms. */
  settlementCheckTimeoutMs?: number;
}

/** A gateway config file for the local stack: TestUSDC on anvil, payee = the stack's payee, `GET /paid` at $0.001. */
export function localGatewayConfig(options: LocalGatewayConfigOptions): GatewayConfigInput {
  const { stack } = options;
  return {
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: {
      url: options.facilitatorUrl ?? stack.facilitatorUrl,
      ...(options.facilitator ?? {}),
    },
    payTo: stack.accounts.payee.address,
    network: stack.network,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    assets: [
      { network: stack.network, address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    upstreams: [{ url: options.upstreamUrl, timeoutMs: options.upstreamTimeoutMs ?? 60_000 }],
    ledger: options.redis ? { type: "redis", ...options.redis } : { type: "memory" },
    routes: options.routes ?? { "GET /paid": { price: "$0.001" } },
    ...(options.recognition ? { recognition: options.recognition } : {}),
    ...(options.settlementCheckTimeoutMs === undefined
      ? {}
      : {
          rpcUrls: { [stack.network]: stack.rpcUrl },
          settlementCheckTimeoutMs: options.settlementCheckTimeoutMs,
        }),
    limits: { drainTimeoutMs: options.drainTimeoutMs ?? 10_000 },
    logging: { level: options.logLevel ?? "warn" },
  };
}
