import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisPaymentLedger, type RedisPaymentLedgerOptions } from "../../src/ledger/RedisPaymentLedger.js";
import {
  startRedisCluster,
  startRedisSentinel,
  type RedisCluster,
  type RedisSentinel,
} from "../../reliability/support/redisProcesses.js";

/**
 * Pass credits on a real Redis Cluster (3 masters, 3 replicas) and a Sentinel-watched master: two ledger
 * handles (two gateways) race 50 uses of a 9-credit pass; each credit is spent once, and ending the payer's
 * passes ends them for both.
 */
let cluster: RedisCluster | undefined;
let sentinel: RedisSentinel | undefined;
const opened: RedisPaymentLedger[] = [];

beforeAll(async () => {
  [cluster, sentinel] = await Promise.all([startRedisCluster(), startRedisSentinel()]);
}, 120_000);

afterAll(async () => {
  await Promise.all(opened.map((ledger) => ledger.close()));
  await Promise.all([cluster?.stop(), sentinel?.stop()]);
});

const topologies: Array<[string, () => RedisPaymentLedgerOptions]> = [
  ["Redis Cluster", () => ({ cluster: { nodes: cluster?.nodes ?? [] } })],
  [
    "Redis Sentinel",
    () => ({ sentinel: { sentinels: sentinel?.sentinels ?? [], name: sentinel?.name ?? "" } }),
  ],
];

describe.each(topologies)("pass credits on %s", (_name, topology) => {
  it("50 concurrent uses through two handles spend 9 credits exactly 9 times; ending them ends them for both", async () => {
    const keyPrefix = `x402-test-passes:${randomUUID()}:`;
    const a = new RedisPaymentLedger({ ...topology(), keyPrefix });
    const b = new RedisPaymentLedger({ ...topology(), keyPrefix });
    opened.push(a, b);
    const payer = `0x${randomBytes(20).toString("hex")}`;
    const id = randomBytes(16).toString("hex");
    const timed = randomBytes(16).toString("hex");
    await a.openPass({ id, scope: "0011223344556677", payer, credits: 9, expiresAtMs: Date.now() + 60_000 });
    await a.openPass({
      id: timed,
      scope: "8899aabbccddeeff",
      payer,
      credits: undefined,
      expiresAtMs: Date.now() + 60_000,
    });
    expect(await b.passOf("0011223344556677", payer)).toBe(id); // both handles connected
    const uses = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).usePass(id)));
    expect(uses.filter((use) => use.status === "used")).toHaveLength(9);
    expect(uses.filter((use) => use.status === "used_up")).toHaveLength(41);
    expect(await b.passOf("8899aabbccddeeff", payer)).toBe(timed);
    expect(await b.endPasses(payer)).toBe(2);
    expect(await a.usePass(timed)).toEqual({ status: "unknown" });
    expect(await a.usePass(id)).toEqual({ status: "unknown" });
  }, 60_000);
});
