import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { startLocalStack } from "../src/dev/startLocalStack.js";
import { RedisPaymentLedger } from "../src/ledger/RedisPaymentLedger.js";
import type { GatewayConfigInput } from "../src/config/gatewayConfigSchema.js";
import { boundShortRun } from "./support/boundShortRun.js";
import { failoverCases, failoverChecks, type FailoverResult } from "./support/failoverCases.js";
import { finishRun } from "./support/finishRun.js";
import { localGatewayConfig } from "./support/localGatewayConfig.js";
import { startRedisCluster } from "./support/redisProcesses.js";
import { paymentSigner } from "./support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "./support/spawnGateway.js";
import { haproxyBinary, startHaproxy } from "./support/startHaproxy.js";
import { startCountingUpstream } from "./support/startCountingUpstream.js";
import { errorCode, machineNote, round } from "./support/startBenchRig.js";

// npm run scaleout -- [--requests N] [--concurrency C] [--short]
// The figures of docs/SCALING.md, all in one run on this machine:
// 1. paid requests/s through HAProxy with 1, 2 and 3 gateways on a 3-master/3-replica Redis Cluster;
// 2. the cost of ledger.wait: one gateway with and without it (interleaved rounds), and the ledger alone;
// 3. failover windows seen by a ledger client: CLUSTER FAILOVER, a killed Cluster master,
//    SENTINEL FAILOVER, a killed Sentinel master; each checked (support/failoverCases.ts).
// --short (CI): part 3's killed-master cases only (test/reliability/scaleOut.test.ts runs the
// coordinated failovers under paid load), bounded; no haproxy, no gateway, no chain needed.
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "60" },
    concurrency: { type: "string", default: "10" },
    short: { type: "boolean", default: false },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
/** A short run (two Redis set-ups, two failovers of at most RECOVERY_BOUND_MS each) that has not finished within this fails. */
const SHORT_RUN_BUDGET_MS = 240_000;

if (values.short) {
  const stops: Array<() => Promise<void>> = [];
  boundShortRun("scaleout", SHORT_RUN_BUDGET_MS, () => Promise.all(stops.map((stop) => stop())));
  let results: FailoverResult[];
  try {
    const cluster = await startRedisCluster();
    stops.push(() => cluster.stop());
    results = await failoverCases(cluster, true, stops);
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
  process.exit(finishFailovers(results, {}, true) ? 0 : 1);
}

/** Ends the run with the failover windows beside `figures`, each case's checks deciding. */
function finishFailovers(
  results: FailoverResult[],
  figures: Record<string, unknown>,
  short: boolean,
): boolean {
  const failoverWindows = Object.fromEntries(results.map(({ name, window }) => [name, window]));
  return finishRun(
    "scaleout",
    { ...figures, failoverWindows, machine: machineNote() },
    failoverChecks(results),
    { short },
  );
}

const HAPROXY = haproxyBinary();
if (HAPROXY === undefined) {
  console.error("scaleout: haproxy is not installed (apt-get install haproxy)");
  process.exit(2);
}

const stack = await startLocalStack();
const upstream = await startCountingUpstream();
const cluster = await startRedisCluster();
const signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
const gateways: GatewayProcess[] = [];
const stops: Array<() => Promise<void>> = [];
const figures: Record<string, unknown> = {};
let passed = false;

function gatewayConfig(wait: boolean, keyPrefix: string): GatewayConfigInput {
  return {
    ...localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      routes: { "GET /paid/*": { price: "$0.001" } },
      publicUrl: "http://gateway.test",
      logLevel: "error",
    }),
    ledger: {
      type: "redis",
      cluster: { nodes: cluster.nodes.slice(0, 2) },
      keyPrefix,
      commandTimeoutMs: 1_000,
      wait: wait ? { replicas: 1, timeoutMs: 500 } : false,
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `requests` fresh payments through `url`, `concurrency` at a time: paid 2xx per second and failures. */
async function paidLoad(
  url: string,
): Promise<{ perSecond: number; ok: number; failed: Record<string, number> }> {
  const headers = await signer.sign(`${url}/paid/warm`, requests);
  let next = 0;
  let ok = 0;
  const failed: Record<string, number> = {};
  const started = performance.now();
  const worker = async () => {
    while (next < headers.length) {
      const i = next++;
      const response = await fetch(`${url}/paid/s${i}`, { headers: { "payment-signature": headers[i]! } });
      const body = await response.text();
      if (response.status === 200 && response.headers.has("payment-response")) ok++;
      else {
        const code = `${response.status} ${errorCode(body)}`;
        failed[code] = (failed[code] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: round(ok / seconds), ok, failed };
}

/** Ledger round trips (reserve, then spend) per second against the cluster, with or without WAIT. */
async function ledgerRoundTrips(wait: boolean, count: number): Promise<number> {
  const ledger = new RedisPaymentLedger({
    cluster: { nodes: cluster.nodes },
    keyPrefix: `bench:${randomUUID()}:`,
    wait: wait ? { replicas: 1, timeoutMs: 500 } : false,
  });
  try {
    await ledger.reserve("warm", { holdMs: 60_000 });
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const reserved = await ledger.reserve(`p${i}`, { holdMs: 60_000 });
      if (reserved.status !== "reserved") throw new Error(`unexpected ${reserved.status}`);
      await ledger.spend(`p${i}`, reserved.token, { keepUntilMs: Date.now() + 60_000 });
    }
    return round(count / ((performance.now() - started) / 1000));
  } finally {
    await ledger.close();
  }
}

try {
  // 1. One, two and three gateways (ledger.wait on, the cluster default) behind HAProxy.
  const keyPrefix = `scale:${randomUUID()}:`;
  gateways.push(
    ...(await Promise.all(
      [1, 2, 3].map(() => spawnGateway(gatewayConfig(true, keyPrefix), { detached: true })),
    )),
  );
  const waitless = await spawnGateway(gatewayConfig(false, keyPrefix), { detached: true });
  gateways.push(waitless);
  stops.push(async () => void (await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")))));
  const fleets = [];
  for (const size of [1, 2, 3]) {
    const haproxy = await startHaproxy(
      HAPROXY,
      gateways.slice(0, size).map((gateway) => gateway.url),
    );
    stops.push(() => haproxy.stop());
    fleets.push({ size, url: haproxy.url });
  }
  const soloWaitless = await startHaproxy(HAPROXY, [waitless.url]);
  stops.push(() => soloWaitless.stop());
  console.log("scaleout: warming up");
  await paidLoad(fleets[2]!.url);
  // Three rounds, the fleet sizes interleaved (the machine's load drifts); the median of each.
  const rounds = new Map<number, number[]>(fleets.map((fleet) => [fleet.size, []]));
  const failures = new Map<number, Record<string, number>>();
  for (let round = 0; round < 3; round++) {
    for (const fleet of fleets) {
      const result = await paidLoad(fleet.url);
      if (Object.keys(result.failed).length > 0)
        console.log(`scaleout: ${fleet.size} refused`, result.failed);
      for (const [code, count] of Object.entries(result.failed)) {
        const seen = failures.get(fleet.size) ?? {};
        seen[code] = (seen[code] ?? 0) + count;
        failures.set(fleet.size, seen);
      }
      rounds.get(fleet.size)!.push(result.perSecond);
    }
  }
  const throughput = Object.fromEntries(
    fleets.map((fleet) => [
      `${fleet.size} gateway${fleet.size > 1 ? "s" : ""}`,
      {
        rounds: rounds.get(fleet.size),
        median: median(rounds.get(fleet.size)!),
        refused: failures.get(fleet.size) ?? {},
      },
    ]),
  );
  console.log("scaleout: paid/s through HAProxy", throughput);
  figures.throughputThroughHaproxy = { requests, concurrency, ...throughput };

  // 2. The cost of WAIT: one gateway with and without it, alternating, three rounds each.
  const withWait: number[] = [];
  const withoutWait: number[] = [];
  for (let round = 0; round < 3; round++) {
    withWait.push((await paidLoad(fleets[0]!.url)).perSecond);
    withoutWait.push((await paidLoad(soloWaitless.url)).perSecond);
  }
  const ledgerWith = await ledgerRoundTrips(true, 2_000);
  const ledgerWithout = await ledgerRoundTrips(false, 2_000);
  figures.waitCost = {
    gatewayPaidPerSecond: {
      withWait,
      withoutWait,
      ratioOfMedians: round(median(withWait) / median(withoutWait), 2),
    },
    ledgerReserveSpendPerSecond: {
      withWait: ledgerWith,
      withoutWait: ledgerWithout,
      ratio: round(ledgerWith / ledgerWithout, 2),
    },
  };
  console.log("scaleout: WAIT", figures.waitCost);
  for (const stop of stops.splice(0).reverse()) await stop();

  // 3. Failover windows, as a ledger client sees them.
  passed = finishFailovers(await failoverCases(cluster, false, stops), figures, false);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await cluster.stop().catch(() => undefined);
  await upstream.close();
  await stack.stop();
}
process.exit(passed ? 0 : 1);
