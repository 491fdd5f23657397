import { cpus, loadavg } from "node:os";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee, type ChainWatch } from "./chainFacts.js";
import { localGatewayConfig } from "./localGatewayConfig.js";
import { paymentSigner, type PaymentSigner } from "./signPayments.js";
import { spawnGateway, type GatewayProcess } from "./spawnGateway.js";
import { startCountingUpstream, type CountingUpstream } from "./startCountingUpstream.js";
import { startRedisServer, type RedisServer } from "./startRedisServer.js";

/** The soak's and load test's world: the local stack, a private Redis ledger, an upstream, one probed gateway process. */
export interface BenchRig {
  stack: LocalStack;
  redis: RedisServer;
  upstream: CountingUpstream;
  gateway: GatewayProcess;
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
  return {
    stack,
    redis,
    upstream,
    gateway,
    signer: paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address),
    chain: await watchPayee(stack),
    async stop() {
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

/** Cores and load, printed beside figures measured on a shared machine. */
export function machineNote(): string {
  return `${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)} at the end`;
}
