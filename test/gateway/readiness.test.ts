import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { READINESS_CACHE_MS } from "../../src/gateway/createReadinessProbe.js";
import { redisCli, until } from "../../reliability/support/redisProcesses.js";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { evmPayment, header, usdcRequirements } from "../support/payments.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { gatewayConfig, PAY_TO } from "./support/gatewayConfig.js";
import { closedPort, startUpstream, type TestUpstream } from "./support/startUpstream.js";

/**
 * `/readyz` a load balancer can trust: a shared ledger that cannot answer, or a recognition node that
 * cannot, makes the gateway not ready (503), each named with a coarse reason.
 */
let upstream: TestUpstream & { release(): void };
let facilitator: Server;
let facilitatorUrl: string;
let redis: RedisServer;
let rpc: StarknetRpcServer;
/** How long the facilitator takes to answer, in ms (a slow dependency). */
let facilitatorDelayMs = 0;
const running: RunningGateway[] = [];

interface ReadyBody {
  ready: boolean;
  draining: boolean;
  checks: Array<{ name: string; ok: boolean; reason?: string }>;
}

beforeAll(async () => {
  [upstream, redis, rpc] = await Promise.all([
    startUpstream(),
    startRedisServer(),
    startStarknetRpcServer({ call: () => ["0x0"] }),
  ]);
  facilitator = createServer((_req, res) => {
    const answer = () => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }] }));
    };
    if (facilitatorDelayMs > 0) setTimeout(answer, facilitatorDelayMs);
    else answer();
  });
  await new Promise<void>((resolve) => facilitator.listen(0, "127.0.0.1", resolve));
  facilitatorUrl = `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
  rpc.setMode("normal");
  facilitatorDelayMs = 0;
});

afterAll(async () => {
  await Promise.all([upstream?.stop(), redis?.stop(), rpc?.close()]);
  await new Promise((resolve) => facilitator?.close(resolve));
});

async function start(overrides: Omit<Parameters<typeof gatewayConfig>[0], "upstreamUrl">) {
  const config = gatewayConfig({ facilitatorUrl, upstreamUrl: upstream.url, ...overrides });
  const gateway = await createGateway(config, { logger: createGatewayLogger("silent") }).listen();
  running.push(gateway);
  return gateway;
}

async function readyz(url: string): Promise<{ status: number; body: ReadyBody }> {
  const answer = await fetch(`${url}/readyz`);
  return { status: answer.status, body: (await answer.json()) as ReadyBody };
}

/**
 * Asks `/readyz` until its answer satisfies `wanted` (a probe older than the cache window is refreshed
 * in the background, so the change shows on a later answer); the last answer otherwise.
 */
async function readyzUntil(
  url: string,
  wanted: (answer: { status: number; body: ReadyBody }) => boolean,
  timeoutMs = 10_000,
): Promise<{ status: number; body: ReadyBody }> {
  const deadline = Date.now() + timeoutMs;
  let answer = await readyz(url);
  while (!wanted(answer) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await readyz(url);
  }
  return answer;
}

const ledgerOn = (url: string, commandTimeoutMs = 300) =>
  ({ type: "redis", url, keyPrefix: `test:ready:${Date.now()}:`, commandTimeoutMs }) as const;

describe("/readyz: answered at once", () => {
  it("past the first probe, a slow dependency never holds an answer: the last result is served while the next probe runs", async () => {
    const gateway = await start({ facilitator: { url: facilitatorUrl, supportedTimeoutMs: 1_000 } });
    expect((await readyz(gateway.url)).status).toBe(200);
    facilitatorDelayMs = 3_000;
    await new Promise((resolve) => setTimeout(resolve, READINESS_CACHE_MS));
    const started = performance.now();
    const stale = await readyz(gateway.url);
    // Not kept waiting for the probe, which takes its 1 s timeout (a load balancer's check would time out).
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stale.status).toBe(200);
    // The probe it started finds the facilitator too slow: the answers after it say so.
    const after = await readyzUntil(gateway.url, (answer) => answer.status === 503, 5_000);
    expect(after.body.checks).toContainEqual({ name: "facilitator", ok: false, reason: "timeout" });
  });
});

describe("/readyz: the ledger", () => {
  it("a Redis ledger at a dead Redis: 503 not ready, ledger unreachable; paid requests get 503 ledger_unavailable", async () => {
    const gateway = await start({ ledger: ledgerOn(`redis://127.0.0.1:${await closedPort()}`) });
    const { status, body } = await readyz(gateway.url);
    expect(status).toBe(503);
    expect(body).toEqual({
      ready: false,
      draining: false,
      checks: [
        { name: "facilitator", ok: true },
        { name: "upstream /", ok: true },
        { name: "ledger", ok: false, reason: "unreachable" },
      ],
    });
    const paid = await fetch(`${gateway.url}/priced`, {
      headers: { "payment-signature": header(evmPayment(usdcRequirements("10000", { payTo: PAY_TO }))) },
    });
    expect(paid.status).toBe(503);
    expect(await paid.json()).toMatchObject({ error: "ledger_unavailable" });
  });

  it("a Redis that answers: ready, the ledger checked; killed: not ready; back: ready again", async () => {
    const gateway = await start({ ledger: ledgerOn(redis.url) });
    expect(await readyz(gateway.url)).toMatchObject({
      status: 200,
      body: { ready: true, checks: expect.arrayContaining([{ name: "ledger", ok: true }]) },
    });
    await redis.kill();
    try {
      const down = await readyzUntil(gateway.url, (answer) => answer.status === 503);
      expect(down.status).toBe(503);
      expect(down.body.checks).toContainEqual({ name: "ledger", ok: false, reason: "unreachable" });
    } finally {
      await redis.restart();
    }
    // ioredis reconnects on its own (backing off): ready again without a restart.
    expect((await readyzUntil(gateway.url, (answer) => answer.status === 200)).status).toBe(200);
  });

  it("a Redis that does not answer in time: not ready, ledger timeout", async () => {
    const gateway = await start({ ledger: ledgerOn(redis.url, 200) });
    expect((await readyz(gateway.url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, READINESS_CACHE_MS));
    const sleeping = redis.sleep(3);
    // redis-cli has started and Redis sleeps (3 s) by then.
    await new Promise((resolve) => setTimeout(resolve, 800));
    try {
      const { status, body } = await readyzUntil(gateway.url, (answer) => answer.status === 503, 2_000);
      expect(status).toBe(503);
      expect(body.checks).toContainEqual({ name: "ledger", ok: false, reason: "timeout" });
    } finally {
      await sleeping;
    }
  });

  it("twenty /readyz at once ask Redis once (the probe is cached), and answer without waiting for it", async () => {
    const gateway = await start({ ledger: ledgerOn(redis.url) });
    await readyz(gateway.url);
    await new Promise((resolve) => setTimeout(resolve, READINESS_CACHE_MS));
    const calls = async () =>
      Number(
        /cmdstat_exists:calls=(\d+)/.exec(await redisCli(redis.port, ["INFO", "commandstats"]))?.[1] ?? 0,
      );
    const before = await calls();
    const answers = await Promise.all(Array.from({ length: 20 }, () => readyz(gateway.url)));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    // The answers came from the last probe; the one refresh they started runs on its own.
    await until("the refresh to reach Redis", async () => (await calls()) > before, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await calls()) - before).toBe(1);
  });

  it("a ledger in memory has nothing to check: no ledger check", async () => {
    const gateway = await start({});
    const { status, body } = await readyz(gateway.url);
    expect(status).toBe(200);
    expect(body.checks.map((check) => check.name)).toEqual(["facilitator", "upstream /"]);
  });
});

describe("/readyz: the recognition node", () => {
  // Long enough for a loaded machine; the "hang" case waits it out.
  const recognition = () => ({ rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 1_500 });
  const publicUrl = "http://gateway.test";

  it("answering: ready, the recognition checked with the call a sign-in makes (est_ouverte)", async () => {
    const gateway = await start({ publicUrl, recognition: recognition() });
    const before = rpc.requests.length;
    const { status, body } = await readyz(gateway.url);
    expect({ status, checks: body.checks }).toEqual({
      status: 200,
      checks: [
        { name: "facilitator", ok: true },
        { name: "upstream /", ok: true },
        { name: "recognition", ok: true },
      ],
    });
    expect(rpc.requests.slice(before).map((request) => request.method)).toEqual(["starknet_call"]);
  });

  it.each([
    { mode: "http500" as const, reason: "status_500" },
    { mode: "hang" as const, reason: "timeout" },
    { mode: "garbage" as const, reason: "malformed" },
    { mode: { rpcError: 20 }, reason: "contract_not_found" },
  ])("node failing ($reason): 503 not ready, recognition $reason", async ({ mode, reason }) => {
    const gateway = await start({ publicUrl, recognition: recognition() });
    rpc.setMode(mode);
    const { status, body } = await readyz(gateway.url);
    expect(status).toBe(503);
    expect(body.checks).toContainEqual({ name: "recognition", ok: false, reason });
    expect(JSON.stringify(body)).not.toContain("127.0.0.1");
  });

  it("a node that is down: unreachable; a route's own recognition is checked under its route key", async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const gateway = await start({
      publicUrl,
      recognition: recognition(),
      routes: {
        "GET /priced": { price: "$0.01" },
        "GET /member": {
          price: "$0.01",
          recognition: { rpcUrl: down, contract: "0x0456abc", timeoutMs: 300 },
        },
      },
    });
    const { status, body } = await readyz(gateway.url);
    expect(status).toBe(503);
    expect(body.checks.slice(2)).toEqual([
      { name: "recognition", ok: true },
      { name: "recognition GET /member", ok: false, reason: "unreachable" },
    ]);
  });
});
