import type { RedisPaymentLedgerOptions } from "../../src/ledger/RedisPaymentLedger.js";
import { failoverWindow, type FailoverWindow } from "./failoverWindow.js";
import type { RunCheck } from "./finishRun.js";
import { sleep, startRedisSentinel, type RedisCluster, type RedisSentinel } from "./redisProcesses.js";

/** A failover must be over, as a ledger client sees it, within this (measured: 4 s to 8 s on a loaded machine). */
export const RECOVERY_BOUND_MS = 30_000;
const WAIT = { replicas: 1, timeoutMs: 500 } as const;

/** One failover case's window, and whether `ledger.wait` was on (then no acknowledged write may be lost). */
export interface FailoverResult {
  name: string;
  wait: boolean;
  window: FailoverWindow;
}

function probe(
  name: string,
  where: RedisPaymentLedgerOptions,
  fault: (ledgerKey: string) => Promise<unknown>,
): Promise<FailoverResult> {
  const wait = where.wait !== undefined && where.wait !== false;
  console.log(`scaleout: ${name}`);
  return failoverWindow({ where, fault, giveUpAfterMs: RECOVERY_BOUND_MS }).then((window) => ({
    name,
    wait,
    window,
  }));
}

/**
 * Every failover case (a short run: the killed masters only): the Cluster's on `cluster`, which is
 * stopped after them, then the Sentinel's on a Sentinel set of their own, its `stop` put in `stops`.
 */
export async function failoverCases(
  cluster: RedisCluster,
  short: boolean,
  stops: Array<() => Promise<void>>,
): Promise<FailoverResult[]> {
  const results = await clusterFailovers(cluster, short);
  await cluster.stop();
  const sentinel = await startRedisSentinel();
  stops.push(() => sentinel.stop());
  return [...results, ...(await sentinelFailovers(sentinel, short))];
}

/**
 * The Cluster's failover cases: a coordinated `CLUSTER FAILOVER` (`wait` on; not in a short run:
 * `test/reliability/scaleOut.test.ts` runs it under paid load), then a killed master (`wait` off: its
 * promoted replica has no replica of its own, so with `wait` it would stay refused).
 */
async function clusterFailovers(cluster: RedisCluster, short: boolean): Promise<FailoverResult[]> {
  const where = { cluster: { nodes: cluster.nodes } };
  const results: FailoverResult[] = [];
  if (!short) {
    results.push(
      await probe("CLUSTER FAILOVER (wait on)", { ...where, wait: WAIT }, async (key) =>
        cluster.failover(await cluster.masterOf(key)),
      ),
    );
  }
  results.push(
    await probe("Cluster master killed (wait off)", { ...where, wait: false }, async (key) => {
      const ledgerMaster = await cluster.masterOf(key);
      await cluster.kill(ledgerMaster);
      const deadline = Date.now() + RECOVERY_BOUND_MS;
      while (
        (await cluster.masterOf(key).catch(() => ledgerMaster)) === ledgerMaster &&
        Date.now() < deadline
      )
        await sleep(100);
    }),
  );
  return results;
}

/**
 * The Sentinel's failover cases: `SENTINEL FAILOVER` (not in a short run:
 * `test/reliability/scaleOut.test.ts` runs it under paid load), then a killed master; `wait` on.
 */
async function sentinelFailovers(sentinel: RedisSentinel, short: boolean): Promise<FailoverResult[]> {
  const where = { sentinel: { sentinels: sentinel.sentinels, name: sentinel.name }, wait: WAIT };
  const results: FailoverResult[] = [];
  if (!short) results.push(await probe("SENTINEL FAILOVER (wait on)", where, () => sentinel.failover()));
  results.push(
    await probe("Sentinel master killed (wait on)", where, async () => {
      const before = await sentinel.masterPort();
      await sentinel.killMaster();
      const deadline = Date.now() + RECOVERY_BOUND_MS;
      while ((await sentinel.masterPort()) === before && Date.now() < deadline) await sleep(100);
    }),
  );
  return results;
}

/** Each case's promises: served again within the bound, every refusal fails closed, and with `wait` nothing acknowledged lost. */
export function failoverChecks(results: FailoverResult[]): RunCheck[] {
  return results.flatMap(({ name, wait, window }) => {
    const others = Object.values(window.otherErrors).reduce((a, b) => a + b, 0);
    const checks: RunCheck[] = [
      {
        promise: `${name}: served again within ${RECOVERY_BOUND_MS / 1000} s`,
        seen: window.recovered
          ? `window ${(window.windowMs / 1000).toFixed(2)} s, ${window.refused} refused`
          : `still refused after ${(window.windowMs / 1000).toFixed(2)} s (${window.refused} refused)`,
        held: window.recovered,
      },
      {
        promise: `${name}: every refusal is ledger_unavailable (fails closed, 503)`,
        seen: `${others} other errors`,
        held: others === 0,
      },
    ];
    if (wait) {
      checks.push({
        promise: `${name}: no acknowledged reservation lost`,
        seen: window.recovered
          ? `${window.lost} of ${window.survivorsChecked} gone from the master (of ${window.served} acknowledged)`
          : `${window.survivorsChecked} of ${window.served} checked before the ledger was lost again`,
        held: window.recovered && window.survivorsChecked === window.served && window.lost === 0,
      });
    }
    return checks;
  });
}
