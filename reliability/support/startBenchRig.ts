import { cpus, loadavg } from "node:os";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee, type ChainWatch } from "./chainFacts.js";
import { injectedFaults } from "./injectedFaults.js";
import { localGatewayConfig } from "./localGatewayConfig.js";
import { paymentSigner, type PaymentSigner } from "./signPayments.js";
import { spawnGateway, type GatewayProcess } from "./spawnGateway.js";
import { startCountingUpstream, type CountingUpstream } from "./startCountingUpstream.js";
import { startFaultyFront } from "./startFaultyFront.js";
import { startRedisServer, type RedisServer } from "./startRedisServer.js";

/** The soak's and load test's world: the local stack, a private Redis ledger, an upstream, one probed gateway process. */
export interface BenchRig {
  stack: LocalStack;
  redis: RedisServer;
  upstream: CountingUpstream;
  gateway: GatewayProcess;
  /** The URL clients use: the gateway's, or with injected faults a faulty front's (see injectedFaults.ts). */
  url: string;
  signer: PaymentSigner;
  chain: ChainWatch;
  stop(): Promise<void>;
}

export async function startBenchRig(options: { probeIntervalMs: number }): Promise<BenchRig> {
  const [stack, redis, upstream] = await Promise.all([
    startLocalStack(),
    startRedisServer(),
    startCountingUpstream(),
  ]);
  const gateway = await spawnGateway(
    localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      redis: { url: redis.url, keyPrefix: "bench:" },
      routes: { "GET /paid/*": { price: "$0.001" } },
      logLevel: "error",
    }),
    { probeIntervalMs: options.probeIntervalMs },
  );
  const faults = injectedFaults();
  const front =
    faults.size === 0
      ? undefined
      : await startFaultyFront({ gatewayUrl: gateway.url, upstreamUrl: upstream.url, faults });
  return {
    stack,
    redis,
    upstream,
    gateway,
    url: front?.url ?? gateway.url,
    signer: paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address),
    chain: await watchPayee(stack),
    async stop() {
      await front?.close();
      await gateway.stop();
      await Promise.all([upstream.close(), redis.stop()]);
      await stack.stop();
    },
  };
}

/** The `q`-quantile (0–1) of sorted numbers; 0 for none. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const MiB = 1024 * 1024;

/** The `error` code of a JSON error body; "" when there is none. */
export function errorCode(body: string): string {
  try {
    return String((JSON.parse(body) as { error?: unknown }).error ?? "");
  } catch {
    return "";
  }
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Cores and load (other work beside the run), printed beside figures measured on a shared machine. */
export function machineNote(): string {
  const [one, , fifteen] = loadavg();
  return `${cpus().length} cores, load average ${one?.toFixed(1)} at the end (${fifteen?.toFixed(1)} over 15 min)`;
}
