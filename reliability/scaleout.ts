import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import { startLocalStack } from "../src/dev/startLocalStack.js";
import { RedisPaymentLedger } from "../src/ledger/RedisPaymentLedger.js";
import type { GatewayConfigInput } from "../src/config/gatewayConfigSchema.js";
import { writeFigures } from "./support/figures.js";
import { localGatewayConfig } from "./support/localGatewayConfig.js";
import { startRedisCluster, startRedisSentinel, sleep } from "./support/redisProcesses.js";
import { paymentSigner } from "./support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "./support/spawnGateway.js";
import { haproxyBinary, startHaproxy } from "./support/startHaproxy.js";
import { startCountingUpstream } from "./support/startCountingUpstream.js";
import { errorCode, machineNote, round } from "./support/startBenchRig.js";

// npm run scaleout -- [--requests N] [--concurrency C]
// The figures of docs/SCALING.md, all in one run on this machine:
// 1. paid requests/s through HAProxy with 1, 2 and 3 gateways on a 3-master/3-replica Redis Cluster;
// 2. the cost of ledger.wait: one gateway with and without it (interleaved rounds), and the ledger alone;
// 3. failover windows seen by a ledger client: CLUSTER FAILOVER, a killed Cluster master,
//    SENTINEL FAILOVER, a killed Sentinel master.
const { values } = parseArgs({
  options: { requests: { type: "string", default: "60" }, concurrency: { type: "string", default: "10" } },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
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
const figures: Record<string, unknown> = { machine: "" };

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

/**
 * A ledger client reserving a fresh payment every 20 ms while `fault` runs: the window is the time from
 * the first refused reserve to the first one served after the last refusal.
 */
async function failoverWindow(
  where: ConstructorParameters<typeof RedisPaymentLedger>[0],
  fault: (ledgerKey: string) => Promise<unknown>,
): Promise<{ windowMs: number; refused: number; served: number }> {
  const keyPrefix = `window:${randomUUID()}:`;
  const ledger = new RedisPaymentLedger({ ...where, keyPrefix, commandTimeoutMs: 1_000 });
  let refused = 0;
  let served = 0;
  let firstRefusal: number | undefined;
  let lastRecovery: number | undefined;
  let failing = false;
  let done = false;
  const probe = (async () => {
    for (let i = 0; !done || failing; i++) {
      try {
        await ledger.reserve(`w${i}`, { holdMs: 60_000 });
        served++;
        if (failing) lastRecovery = Date.now();
        failing = false;
      } catch {
        refused++;
        firstRefusal ??= Date.now();
        failing = true;
      }
      await sleep(20);
      if (i > 3_000) break;
    }
  })();
  await sleep(300);
  await fault(`{${keyPrefix}}x`);
  await sleep(1_000);
  done = true;
  await probe;
  await ledger.close();
  const windowMs = firstRefusal === undefined ? 0 : (lastRecovery ?? Date.now()) - firstRefusal;
  return { windowMs, refused, served };
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
  const clusterWhere = { cluster: { nodes: cluster.nodes } };
  const windows: Record<string, unknown> = {};
  windows["CLUSTER FAILOVER (wait on)"] = await failoverWindow(
    { ...clusterWhere, wait: { replicas: 1, timeoutMs: 500 } },
    async (key) => cluster.failover(await cluster.masterOf(key)),
  );
  // Killed: its replica is promoted without one of its own, so only a ledger without WAIT is served again.
  windows["Cluster master killed (wait off)"] = await failoverWindow(
    { ...clusterWhere, wait: false },
    async (key) => {
      const ledgerMaster = await cluster.masterOf(key);
      await cluster.kill(ledgerMaster);
      const deadline = Date.now() + 20_000;
      while (
        (await cluster.masterOf(key).catch(() => ledgerMaster)) === ledgerMaster &&
        Date.now() < deadline
      )
        await sleep(100);
    },
  );
  await cluster.stop();
  const sentinel = await startRedisSentinel();
  const sentinelWhere = { sentinel: { sentinels: sentinel.sentinels, name: sentinel.name } };
  windows["SENTINEL FAILOVER (wait on)"] = await failoverWindow(
    { ...sentinelWhere, wait: { replicas: 1, timeoutMs: 500 } },
    () => sentinel.failover(),
  );
  windows["Sentinel master killed (wait on)"] = await failoverWindow(
    { ...sentinelWhere, wait: { replicas: 1, timeoutMs: 500 } },
    async () => {
      const before = await sentinel.masterPort();
      await sentinel.killMaster();
      const deadline = Date.now() + 30_000;
      while ((await sentinel.masterPort()) === before && Date.now() < deadline) await sleep(100);
    },
  );
  await sentinel.stop();
  figures.failoverWindows = windows;
  figures.machine = machineNote();
  console.log(JSON.stringify(figures, null, 2));
  console.log(`scaleout: wrote ${writeFigures("scaleout", figures)}`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await cluster.stop().catch(() => undefined);
  await upstream.close();
  await stack.stop();
}
