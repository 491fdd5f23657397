import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { writeFigures } from "../../reliability/support/figures.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import {
  redisCli,
  sleep,
  startRedisSentinel,
  type RedisSentinel,
} from "../../reliability/support/redisProcesses.js";
import { paymentSigner, type PaymentSigner } from "../../reliability/support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { ask, paid, type Answer } from "./support/faultLog.js";
import { retryUntilServed } from "./support/retryUntilServed.js";

/**
 * The Sentinel master's `redis-server` SIGKILLed (not `SENTINEL FAILOVER`) while two gateway processes
 * serve paid requests (a master, two replicas, three sentinels with `down-after-milliseconds` 1 s; `wait`
 * on): each gateway serves paid requests again within {@link RECOVERY_BOUND_MS} of the kill
 * (docs/SCALING.md), every refusal meanwhile is `503 ledger_unavailable` with Retry-After, and every
 * refused payment, retried, is served once (checked on anvil and at the upstream).
 */
const RECOVERY_BOUND_MS = 15_000;
/** A reservation left by a refused attempt (Redis away: not undone) holds its payment this long. */
const RESERVATION_TTL_MS = 4_000;
/**
 * How long a refused payment is retried: until the set has healed. Sentinel may fail over twice: a sentinel
 * that has not reached the just-promoted master within `down-after-milliseconds` calls it down too and
 * promotes the other replica (seen here about once in 15 kills, under load or not). The demoted master is
 * made a replica only at the sentinels' next 10 s INFO round, then resyncs in full (Redis's 5 s diskless
 * delay): with `wait` on, nothing is served until then, about 20 s after the kill. 30 s covers it.
 */
const HEAL_BOUND_MS = 30_000;
/** $0.001 of TestUSDC (6 decimals). */
const PRICE = 1_000n;

let stack: LocalStack;
let upstream: CountingUpstream;
let signer: PaymentSigner;
const figures: Record<string, unknown> = { boundMs: RECOVERY_BOUND_MS };
const stops: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [stack, upstream] = await Promise.all([startLocalStack(), startCountingUpstream()]);
  signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
}, 120_000);

afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  await Promise.all([upstream?.close(), stack?.stop()]);
  writeFigures("sentinel-master-killed", figures);
});

/** A fresh Sentinel set (master, two replicas, three sentinels) and two gateways sharing it. */
async function startFleet(): Promise<{ sentinel: RedisSentinel; gateways: GatewayProcess[] }> {
  const sentinel = await startRedisSentinel();
  stops.push(() => sentinel.stop());
  const config = {
    ...localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      routes: { "GET /paid/*": { price: "$0.001" } },
      publicUrl: "http://gateway.test",
      logLevel: "error",
    }),
    // `wait` is on by default with Sentinel: a paid request needs the new master and a replica in sync.
    ledger: {
      type: "redis",
      sentinel: { sentinels: sentinel.sentinels, name: sentinel.name },
      keyPrefix: `test:sentinel-kill:${randomUUID()}:`,
      commandTimeoutMs: 1_000,
    },
    reservationTtlMs: RESERVATION_TTL_MS,
  } as const;
  const gateways = await Promise.all(
    [1, 2].map(() => spawnGateway(config, { detached: true, startTimeoutMs: 90_000 })),
  );
  stops.push(() => Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL"))));
  return { sentinel, gateways };
}

interface Sent extends Answer {
  gateway: number;
  header: string;
  /** When it was sent. */
  at: number;
}

/**
 * Two clients per gateway send fresh payments to `path` (a refused one waits its Retry-After); once six
 * are served, the master is SIGKILLed; the load goes on until every gateway served a
 * payment sent after the kill (or the bound and 5 s more passed). Checks the answers, retries the refused
 * payments until served, checks one transfer and one upstream hit per payment, and returns each gateway's
 * recovery time (ms from the master's exit to its first served payment sent after it).
 */
async function killMasterUnderLoad(
  fleet: { sentinel: RedisSentinel; gateways: GatewayProcess[] },
  path: string,
): Promise<{ recoveryMs: number[]; payments: number; refused: number; retries: number }> {
  const { sentinel, gateways } = fleet;
  const next = await signer.forOffer(`${gateways[0]!.url}${path}`);
  const chain = await watchPayee(stack);
  const settlesBefore = stack.facilitator.calls.settle;
  const hitsBefore = upstream.hits.get(path) ?? 0;
  const sent: Sent[] = [];
  // When the master's process had exited: set once, read by the clients.
  const kill: { at?: number } = {};
  const recoveredAt = new Map<number, number>();
  const over = () =>
    (kill.at !== undefined && recoveredAt.size === gateways.length) ||
    Date.now() > (kill.at ?? Date.now()) + RECOVERY_BOUND_MS + 5_000;
  const client = async (gateway: number) => {
    while (!over()) {
      const header = await next();
      const at = Date.now();
      const answer = await ask(`${gateways[gateway]!.url}${path}`, paid(header));
      sent.push({ ...answer, gateway, header, at });
      // Recovered: a payment sent once the master was gone is served.
      if (answer.status === 200 && kill.at !== undefined && at >= kill.at && !recoveredAt.has(gateway))
        recoveredAt.set(gateway, Date.now());
      if (answer.status !== 200) await sleep(Number(answer.retryAfter ?? "1") * 1000);
    }
  };
  const clients = gateways.flatMap((_, gateway) => [client(gateway), client(gateway)]);
  while (sent.filter((answer) => answer.status === 200).length < 6) await sleep(50);
  const master = await sentinel.masterPort();
  await sentinel.killMaster();
  kill.at = Date.now();
  await Promise.all(clients);

  const recoveryMs = gateways.map((_, gateway) => (recoveredAt.get(gateway) ?? Infinity) - kill.at!);
  expect(await sentinel.masterPort()).not.toBe(master);
  // Meanwhile: served (settled) or refused as "retry later", nothing else.
  const refused = sent.filter((answer) => answer.status !== 200);
  for (const answer of refused) {
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 503, code: "ledger_unavailable" });
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  }
  for (const answer of sent.filter((a) => a.status === 200)) expect(answer.paymentResponse).toBe(true);

  // The refused payments, retried, are each served once: one transfer and one upstream hit per payment.
  // (A reservation that could not be undone while Redis was away holds its payment up to its TTL; a second
  // failover holds every payment until a replica is in sync again.)
  const attempts: Answer[] = [];
  const retried = await Promise.all(
    refused.map(async (answer, i) => {
      await sleep((i % 8) * 50);
      const url = `${gateways[answer.gateway]!.url}${path}`;
      return retryUntilServed(url, answer.header, attempts, RESERVATION_TTL_MS + HEAL_BOUND_MS);
    }),
  );
  // Should a retry not be served, the failure says what the Redis side looked like then.
  const replication = retried.every((answer) => answer.status === 200)
    ? ""
    : await redisCli(await sentinel.masterPort(), ["INFO", "replication"]).catch(
        (error: Error) => error.message,
      );
  expect(
    retried.map((answer) => `${answer.status} ${answer.code ?? ""}`),
    replication,
  ).toEqual(refused.map(() => "200 "));
  for (const answer of attempts.filter((a) => a.status === 200)) expect(answer.paymentResponse).toBe(true);
  const payments = sent.length;
  expect(upstream.hits.get(path)! - hitsBefore).toBe(payments);
  expect(stack.facilitator.calls.settle - settlesBefore).toBe(payments);
  expect(await chain.transfersToPayee()).toEqual({ count: payments, total: PRICE * BigInt(payments) });
  return { recoveryMs, payments, refused: refused.length, retries: attempts.length };
}

describe("the Sentinel master's process killed under paid load", () => {
  it(`every gateway serves paid requests again within ${RECOVERY_BOUND_MS / 1000} s; each refused payment is served once on retry`, async () => {
    const result = await killMasterUnderLoad(await startFleet(), "/paid/sentinel-kill");
    figures.masterKilled = result;
    for (const ms of result.recoveryMs) expect(ms).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }, 180_000);
});
