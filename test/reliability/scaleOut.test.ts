import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { writeFigures } from "../../reliability/support/figures.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import {
  startRedisCluster,
  startRedisSentinel,
  until,
  type RedisCluster,
  type RedisSentinel,
} from "../../reliability/support/redisProcesses.js";
import { paymentSigner, type PaymentSigner } from "../../reliability/support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import {
  haproxyBinary,
  startHaproxy,
  untilBackendsReady,
  type Haproxy,
} from "../../reliability/support/startHaproxy.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import type { GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import { ask, paid, type Answer } from "./support/faultLog.js";
import { retryUntilServed as retryOnce } from "./support/retryUntilServed.js";
import { ALERT_RULES, expectRuleFed } from "./support/promQuery.js";

/**
 * Past one machine: three `x402-gateway serve` processes behind HAProxy (round robin, `/readyz` checks),
 * sharing a 3-master / 3-replica Redis Cluster, then a Sentinel-watched master with two replicas; faults
 * under paid load, each checked on anvil (transfers to the payee) and at the upstream (hits).
 */
const HAPROXY = haproxyBinary();
if (HAPROXY === undefined) {
  console.warn(
    "test/reliability/scaleOut.test.ts did not run: haproxy is not installed (apt-get install haproxy)",
  );
}

const PUBLIC_URL = "http://gateway.test";
/** A reservation left by a killed gateway holds its payment this long. */
const RESERVATION_TTL_MS = 4_000;
/** $0.001 of TestUSDC (6 decimals). */
const PRICE = 1_000n;

let stack: LocalStack;
let upstream: CountingUpstream;
let signer: PaymentSigner;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  if (HAPROXY === undefined) return;
  [stack, upstream] = await Promise.all([startLocalStack(), startCountingUpstream()]);
  signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
}, 120_000);

afterAll(async () => {
  await Promise.all([upstream?.close(), stack?.stop()]);
  if (Object.keys(figures).length > 0) writeFigures("scale-out", figures);
});

/** Three gateways sharing `ledger`, and HAProxy in front of them. */
interface Fleet {
  gateways: GatewayProcess[];
  haproxy: Haproxy;
  keyPrefix: string;
  stop(): Promise<void>;
}

async function startFleet(ledger: (keyPrefix: string) => GatewayConfigInput["ledger"]): Promise<Fleet> {
  const keyPrefix = `test:scale:${randomUUID()}:`;
  const config: GatewayConfigInput = {
    ...localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      routes: { "GET /paid/*": { price: "$0.001" } },
      publicUrl: PUBLIC_URL,
      logLevel: "error",
    }),
    ledger: ledger(keyPrefix),
    reservationTtlMs: RESERVATION_TTL_MS,
  };
  const gateways = await Promise.all(
    [1, 2, 3].map(() => spawnGateway(config, { detached: true, startTimeoutMs: 90_000 })),
  );
  const haproxy = await startHaproxy(
    HAPROXY as string,
    gateways.map((gateway) => gateway.url),
  );
  return {
    gateways,
    haproxy,
    keyPrefix,
    async stop() {
      await haproxy.stop();
      await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")));
    },
  };
}

/** Sends `header` until it is served (a killed gateway's reservation holds it up to its TTL). */
const retryUntilServed = (url: string, header: string, attempts: Answer[]) =>
  retryOnce(url, header, attempts, RESERVATION_TTL_MS + 20_000);

/** Every paid 2xx carries the settlement (`PAYMENT-RESPONSE`): never a 2xx without a settled payment. */
function expectSettled2xx(answers: Answer[]): void {
  for (const answer of answers.filter((a) => a.status >= 200 && a.status < 300)) {
    expect(answer.paymentResponse).toBe(true);
  }
}

/**
 * `count` fresh payments sent through HAProxy, `concurrency` at a time; `fault` runs once `faultAfter`
 * answers are in. Every first answer is 200, `503 ledger_unavailable` with Retry-After, or HAProxy's own 503
 * (every gateway not ready: the ledger does not answer); the refusals are retried until served. Checks one 2xx per payment, one transfer each, one upstream hit each.
 */
async function paidLoadThrough(
  fleet: Fleet,
  path: string,
  options: { count: number; concurrency: number; faultAfter: number; fault: () => Promise<unknown> },
): Promise<{ refused: number; windowMs: number; faultMs: number; requestsPerSecond: number }> {
  const url = `${fleet.haproxy.url}${path}`;
  const headers = await signer.sign(url, options.count);
  const chain = await watchPayee(stack);
  const settlesBefore = stack.facilitator.calls.settle;
  const hitsBefore = upstream.hits.get(path) ?? 0;
  const first: Array<Answer & { at: number; header: string }> = [];
  let faultMs = 0;
  let faulted: Promise<void> | undefined;
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < headers.length) {
      const header = headers[next++] as string;
      const answer = await ask(url, paid(header));
      first.push({ ...answer, at: Date.now(), header });
      if (first.length === options.faultAfter && faulted === undefined) {
        const at = Date.now();
        faulted = options.fault().then(() => void (faultMs = Date.now() - at));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await faulted;
  const elapsed = Date.now() - started;

  const refused = first.filter((answer) => answer.status !== 200);
  for (const answer of refused) {
    // HAProxy's own 503: every gateway's /readyz said the ledger was not answering, nothing was sent on.
    if (answer.status === 503 && answer.code === undefined) continue;
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 503, code: "ledger_unavailable" });
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  }
  expectSettled2xx(first);
  // The refused payments, retried (same header) until served: exactly one 2xx per payment in all.
  const retries: Answer[] = [];
  for (const answer of refused) {
    const final = await retryUntilServed(url, answer.header, retries);
    expect(final.status).toBe(200);
  }
  expectSettled2xx(retries);
  expect(first.filter((a) => a.status === 200).length + retries.filter((a) => a.status === 200).length).toBe(
    options.count,
  );
  expect(upstream.hits.get(path)! - hitsBefore).toBe(options.count);
  expect(stack.facilitator.calls.settle - settlesBefore).toBe(options.count);
  expect(await chain.transfersToPayee()).toEqual({
    count: options.count,
    total: PRICE * BigInt(options.count),
  });
  const times = refused.map((answer) => answer.at);
  return {
    refused: refused.length,
    windowMs: times.length === 0 ? 0 : Math.max(...times) - Math.min(...times),
    faultMs,
    requestsPerSecond: Math.round((options.count / elapsed) * 10_000) / 10,
  };
}

describe.skipIf(HAPROXY === undefined)(
  "three gateways behind HAProxy on a Redis Cluster (3 masters, 3 replicas)",
  () => {
    let cluster: RedisCluster;
    let fleet: Fleet;

    beforeAll(async () => {
      cluster = await startRedisCluster();
      fleet = await startFleet((keyPrefix) => ({
        type: "redis",
        cluster: { nodes: cluster.nodes.slice(0, 2) },
        keyPrefix,
        commandTimeoutMs: 1_000,
        wait: { replicas: 1, timeoutMs: 500 },
      }));
    }, 150_000);

    afterAll(async () => {
      await fleet?.stop();
      await cluster?.stop();
    });

    it("copies of one payment sent at once through HAProxy (one to each gateway): one 2xx, one settlement", async () => {
      const payments = 8;
      const url = `${fleet.haproxy.url}/paid/race`;
      const headers = await signer.sign(url, payments);
      const chain = await watchPayee(stack);
      const settlesBefore = stack.facilitator.calls.settle;
      const answers: Answer[][] = [];
      for (const header of headers) {
        // Round robin: three requests in flight at once land on three different gateways.
        answers.push(await Promise.all([0, 1, 2].map(() => ask(url, paid(header)))));
      }
      const retries: Answer[] = [];
      for (const [i, copies] of answers.entries()) {
        expect(copies.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(1);
        for (const loser of copies.filter((answer) => answer.status !== 200)) {
          // 503 ledger_unavailable: a loaded machine's replica did not acknowledge the reservation in time;
          // HAProxy's own 503 (no code): no gateway was in rotation, nothing was sent on (both fail closed).
          expect([
            { status: 409, code: "payment_in_progress" },
            { status: 402, code: "payment_already_used" },
            { status: 503, code: "ledger_unavailable" },
            { status: 503, code: undefined },
          ]).toContainEqual({ status: loser.status, code: loser.code });
        }
        expectSettled2xx(copies);
        // Every copy refused (none got through): the payer's retry is served.
        if (copies.every((answer) => answer.status !== 200)) {
          expect((await retryUntilServed(url, headers[i] as string, retries)).status).toBe(200);
        }
      }
      const served = answers.flat().filter((answer) => answer.status === 200).length;
      expect(served + retries.filter((answer) => answer.status === 200).length).toBe(payments);
      expect(upstream.hits.get("/paid/race")).toBe(payments);
      expect(stack.facilitator.calls.settle - settlesBefore).toBe(payments);
      expect(await chain.transfersToPayee()).toEqual({ count: payments, total: PRICE * BigInt(payments) });
      figures.clusterRaces = { payments, copiesEach: 3, paid2xx: payments, transfers: payments };
    }, 120_000);

    it("the ledger's master failed over (CLUSTER FAILOVER on its replica) under paid load: 200 or 503 ledger_unavailable, each payment served once", async () => {
      const tagged = `{${fleet.keyPrefix}}x`;
      const master = await cluster.masterOf(tagged);
      let promoted = 0;
      const result = await paidLoadThrough(fleet, "/paid/cluster-failover", {
        count: 24,
        concurrency: 6,
        faultAfter: 6,
        fault: async () => (promoted = await cluster.failover(master)),
      });
      expect(await cluster.masterOf(tagged)).toBe(promoted);
      figures.clusterFailover = { payments: 24, ...result };
    }, 120_000);

    it("kill -9 of a gateway holding paid requests: nothing settled there; each payer's retry is served once", async () => {
      const inFlight = 6;
      const url = `${fleet.haproxy.url}/paid/held`;
      // Round robin must reach the victim: a gateway left not ready by the failover before (its ledger
      // check) is out of HAProxy's rotation until 2 good checks (250 ms apart) bring it back.
      await untilBackendsReady(fleet.gateways.map((gateway) => gateway.url));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const headers = await signer.sign(url, inFlight);
      const chain = await watchPayee(stack);
      const settlesBefore = stack.facilitator.calls.settle;
      const hitsBefore = upstream.hits.get("/paid/held") ?? 0;
      const pending = headers.map((header) => ask(url, paid(header)));
      await until("every request to reach the upstream", async () => upstream.heldCount() === inFlight);
      const victim = fleet.gateways[2] as GatewayProcess;
      await victim.stop("SIGKILL");
      const releasing = setInterval(() => upstream.releaseHeld(), 50);
      try {
        const answers = await Promise.all(pending);
        const cut = answers.filter((answer) => answer.status !== 200);
        // Round robin put some of the six (two, when every gateway is up) on the killed gateway: their
        // connections were cut, unsettled.
        expect(cut.length).toBeGreaterThan(0);
        for (const answer of cut) expect([0, 502, 503]).toContain(answer.status);
        expectSettled2xx(answers);
        const retries: Answer[] = [];
        for (const [i, answer] of answers.entries()) {
          if (answer.status === 200) continue;
          const final = await retryUntilServed(url, headers[i] as string, retries);
          expect(final.status).toBe(200);
        }
        expectSettled2xx(retries);
        // Every payment settled once and delivered once; the killed gateway's two reached the upstream twice.
        expect(stack.facilitator.calls.settle - settlesBefore).toBe(inFlight);
        expect(await chain.transfersToPayee()).toEqual({ count: inFlight, total: PRICE * BigInt(inFlight) });
        expect(upstream.hits.get("/paid/held")! - hitsBefore).toBe(inFlight + cut.length);
        figures.gatewayKilled = {
          inFlight,
          cut: cut.length,
          retries: retries.length,
          retriedAnswers: retries.map((answer) => `${answer.status} ${answer.code ?? ""}`.trim()),
          transfers: inFlight,
        };
      } finally {
        clearInterval(releasing);
      }
    }, 120_000);
  },
);

describe.skipIf(HAPROXY === undefined)(
  "three gateways behind HAProxy on a Sentinel-watched master (2 replicas, 3 sentinels)",
  () => {
    let sentinel: RedisSentinel;
    let fleet: Fleet;

    beforeAll(async () => {
      sentinel = await startRedisSentinel();
      fleet = await startFleet((keyPrefix) => ({
        type: "redis",
        sentinel: { sentinels: sentinel.sentinels, name: sentinel.name },
        keyPrefix,
        commandTimeoutMs: 1_000,
      }));
    }, 150_000);

    afterAll(async () => {
      await fleet?.stop();
      await sentinel?.stop();
    });

    it("SENTINEL FAILOVER under paid load: 200 or 503 ledger_unavailable, each payment served once", async () => {
      const before = await sentinel.masterPort();
      const result = await paidLoadThrough(fleet, "/paid/sentinel-failover", {
        count: 24,
        concurrency: 6,
        faultAfter: 6,
        fault: () => sentinel.failover(),
      });
      expect(await sentinel.masterPort()).not.toBe(before);
      figures.sentinelFailover = { payments: 24, ...result };
    }, 120_000);

    it("replicas stalled (DEBUG SLEEP): WAIT times out, paid requests get 503 ledger_unavailable and are counted; retried, served once", async () => {
      const path = "/paid/stalled";
      const url = `${fleet.haproxy.url}${path}`;
      const headers = await signer.sign(url, 6);
      const chain = await watchPayee(stack);
      const settlesBefore = stack.facilitator.calls.settle;
      let stallOver = false;
      const stall = sentinel.stallReplicas(3).finally(() => (stallOver = true));
      const first: Array<{ header: string; answer: Answer }> = [];
      // One at a time while the replicas sleep, until one is refused.
      for (const header of headers) {
        const answer = await ask(url, paid(header));
        first.push({ header, answer });
        if (answer.status === 503 || stallOver) break;
      }
      await stall;
      const refused = first.filter(({ answer }) => answer.status !== 200);
      expect(refused.length).toBeGreaterThan(0);
      for (const { answer } of refused) {
        expect({ status: answer.status, code: answer.code }).toEqual({
          status: 503,
          code: "ledger_unavailable",
        });
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
      expectSettled2xx(first.map(({ answer }) => answer));
      const retries: Answer[] = [];
      for (const { header } of refused)
        expect((await retryUntilServed(url, header, retries)).status).toBe(200);
      expectSettled2xx(retries);
      expect(upstream.hits.get(path)).toBe(first.length);
      expect(stack.facilitator.calls.settle - settlesBefore).toBe(first.length);
      expect(await chain.transfersToPayee()).toEqual({
        count: first.length,
        total: PRICE * BigInt(first.length),
      });
      // The alert on WAIT timeouts is fed by what the gateways now report.
      const metrics = await Promise.all(
        fleet.gateways.map(async (gateway) => (await fetch(gateway.metricsUrl!)).text()),
      );
      const rule = ALERT_RULES.find((candidate) => candidate.alert === "X402LedgerWaitTimeouts");
      expect(rule).toBeDefined();
      expectRuleFed(rule!, metrics.join("\n"));
      figures.replicasStalled = { payments: first.length, refused: refused.length };
    }, 120_000);
  },
);
