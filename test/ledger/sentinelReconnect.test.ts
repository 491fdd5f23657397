import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { until } from "../../reliability/support/redisProcesses.js";
import { startScriptedSentinel, type ScriptedSentinel } from "../support/scriptedSentinel.js";

/**
 * A Sentinel ledger client reconnecting after its master died, with the sentinels' timing scripted: the
 * races a loaded machine produces by chance are produced here every time.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function redisServer(): Promise<RedisServer> {
  const server = await startRedisServer();
  cleanups.push(() => server.stop());
  return server;
}

async function sentinel(options: { silent?: boolean } = {}): Promise<ScriptedSentinel> {
  const started = await startScriptedSentinel(options);
  cleanups.push(() => started.close());
  return started;
}

function ledgerOn(sentinels: ScriptedSentinel[]): RedisPaymentLedger {
  const ledger = new RedisPaymentLedger({
    sentinel: { sentinels: sentinels.map((s) => s.url), name: "x402ledger" },
    keyPrefix: `test:sentinel:${randomUUID()}:`,
    commandTimeoutMs: 500,
  });
  cleanups.push(() => ledger.close());
  return ledger;
}

/** Whether a fresh payment can be reserved now. */
const reserves = async (ledger: RedisPaymentLedger) =>
  (await ledger.reserve(randomUUID(), { holdMs: 10_000 })).status === "reserved";

describe("a Sentinel ledger client after its master is killed", () => {
  it("a +switch-master heard while it asks a sentinel for the master does not end it: it connects to the new master", async () => {
    const [oldMaster, newMaster] = await Promise.all([redisServer(), redisServer()]);
    const watcher = await sentinel();
    watcher.setMaster(oldMaster.port);
    const ledger = ledgerOn([watcher]);
    await until("the first reserve (ioredis loads, connects)", () => reserves(ledger), 10_000);
    // The failover detector listens on the sentinel before the fault.
    await until("the client to subscribe to +switch-master", async () => watcher.subscribers() > 0, 5_000);

    // The master dies; the client's reconnection asks the sentinel, which is slow to answer…
    const hold = watcher.holdLookups();
    await oldMaster.kill();
    await hold.held;
    // …and the failover completes meanwhile: the switch is announced before the lookup is answered.
    watcher.setMaster(newMaster.port);
    watcher.switchMaster(oldMaster.port, newMaster.port);
    await new Promise((resolve) => setTimeout(resolve, 100));
    hold.release();

    // ioredis 5 ends the client for good here (status "end": no reconnection), unless it is reconnected.
    const started = Date.now();
    await until("a reserve to succeed on the new master", () => reserves(ledger), 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 20_000);

  it("a sentinel that accepts and never answers costs one command timeout, then the next one is asked", async () => {
    const master = await redisServer();
    const [frozen, watcher] = await Promise.all([sentinel({ silent: true }), sentinel()]);
    watcher.setMaster(master.port);
    const ledger = ledgerOn([frozen, watcher]);
    const started = Date.now();
    // Without a command timeout on sentinel lookups the client waits for the frozen one forever.
    await until("a reserve to succeed", () => reserves(ledger), 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(watcher.lookups()).toBeGreaterThan(0);
  }, 20_000);
});
