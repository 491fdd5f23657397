import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { ask, expectAlive, expectRefused, FaultLog, paid } from "./support/faultLog.js";
import { PRICE, startFaultRig, waitFor, type FaultRig } from "./support/startFaultRig.js";

let redis: RedisServer;
let rig: FaultRig;
const log = new FaultLog("redis");
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  // Our own redis-server: this suite kills it. Never the machine's Redis.
  redis = await startRedisServer();
  rig = await startFaultRig({ redis: { url: redis.url, keyPrefix: "reliability:", commandTimeoutMs: 500 } });
}, 120_000);

afterAll(async () => {
  log.write({ gatewayExit: await rig?.stop(), ...figures });
  await redis?.stop();
});

describe("the Redis ledger killed, restarted and slowed under a running gateway process", () => {
  let spentBeforeTheCrash: string;

  it("Redis killed: paid requests fail closed with 503 ledger_unavailable, nothing is verified or served; free traffic flows", async () => {
    spentBeforeTheCrash = await rig.pay("/paid/before");
    expect((await ask(`${rig.gateway.url}/paid/before`, paid(spentBeforeTheCrash))).status).toBe(200);

    await redis.kill();
    const header = await rig.pay("/paid/down");
    const chain = await watchPayee(rig.stack);
    const verifies = rig.proxy.received.verify;
    const hits = rig.upstream.hits.get("/paid/down") ?? 0;
    const started = performance.now();
    const got = await ask(`${rig.gateway.url}/paid/down`, paid(header));
    figures.failClosedMs = Math.round(performance.now() - started);
    log.add("Redis killed", "503 ledger_unavailable", got, (await chain.transfersToPayee()).count);
    expectRefused(got, 503, "ledger_unavailable");
    expect(Number(got.retryAfter)).toBeGreaterThan(0);
    expect(rig.proxy.received.verify).toBe(verifies);
    expect(rig.upstream.hits.get("/paid/down") ?? 0).toBe(hits);
    expect((await ask(`${rig.gateway.url}/free`)).status).toBe(200);
    const metrics = await (await fetch(rig.gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/x402_gateway_ledger_errors_total\{operation="reserve"\} [1-9]/);
    await expectAlive(rig.gateway);
  }, 30_000);

  it("Redis back: the gateway recovers without a restart; a payment it lost track of is still refused by the chain", async () => {
    await redis.restart();
    const header = await rig.pay("/paid/back");
    const chain = await watchPayee(rig.stack);
    const started = performance.now();
    let got = await ask(`${rig.gateway.url}/paid/back`, paid(header));
    // ioredis reconnects on its own, with a back-off: retry the same (never reserved) payment until it is back.
    await waitFor(async () => {
      if (got.status === 200) return true;
      expectRefused(got, 503, "ledger_unavailable");
      got = await ask(`${rig.gateway.url}/paid/back`, paid(header));
      return got.status === 200;
    }, 15_000);
    figures.recoveryMs = Math.round(performance.now() - started);
    log.add("Redis restarted", "200 after reconnection", got, (await chain.transfersToPayee()).count);
    expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });

    // Redis kept nothing on disk, so it forgot the payment spent before the crash: the chain refuses it anyway.
    const replay = await ask(`${rig.gateway.url}/paid/before`, paid(spentBeforeTheCrash));
    log.add("replay of a payment Redis forgot", "402 verification_failed", replay, 0);
    expectRefused(replay, 402, "verification_failed");
    expect((await chain.transfersToPayee()).count).toBe(1);
  }, 30_000);

  it("Redis slow (DEBUG SLEEP past the command timeout): 503 ledger_unavailable, then normal service", async () => {
    const header = await rig.pay("/paid/slow");
    const chain = await watchPayee(rig.stack);
    const sleeping = redis.sleep(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const got = await ask(`${rig.gateway.url}/paid/slow`, paid(header));
    log.add(
      "Redis slow (2 s, timeout 500 ms)",
      "503 ledger_unavailable",
      got,
      (await chain.transfersToPayee()).count,
    );
    expectRefused(got, 503, "ledger_unavailable");
    await sleeping;
    const after = await ask(`${rig.gateway.url}/paid/slow`, paid(header));
    expect(after.status).toBe(200);
    expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });
  }, 30_000);

  it("Redis killed while a paid response is held: the settlement completes and the response is served once", async () => {
    const header = await rig.pay("/paid/held");
    const chain = await watchPayee(rig.stack);
    const pending = ask(`${rig.gateway.url}/paid/held`, paid(header));
    await waitFor(() => rig.upstream.heldCount() === 1);
    await redis.kill();
    rig.upstream.releaseHeld();
    const got = await pending;
    // The money moved, so the response is served even though the spent mark could not be written;
    // a replay is still refused by the token contract (the authorization's nonce is used).
    log.add(
      "Redis killed mid-flight (held response)",
      "200, settled once",
      got,
      (await chain.transfersToPayee()).count,
    );
    expect(got.status).toBe(200);
    expect(got.paymentResponse).toBe(true);
    expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });
    await redis.restart();
    await waitFor(
      async () => (await ask(`${rig.gateway.url}/paid/held`, paid(header))).status === 402,
      15_000,
    );
    expect((await chain.transfersToPayee()).count).toBe(1);
    await expectAlive(rig.gateway);
  }, 40_000);
});
