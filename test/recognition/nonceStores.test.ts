import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryNonceStore } from "../../src/recognition/MemoryNonceStore.js";
import { RedisNonceStore } from "../../src/recognition/RedisNonceStore.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const fresh = () => randomBytes(16).toString("hex");

describe("MemoryNonceStore", () => {
  it("lets an issued nonce be consumed once", async () => {
    const store = new MemoryNonceStore();
    const nonce = fresh();
    await store.issue(nonce, 60_000);
    expect(await store.consume(nonce)).toBe(true);
    expect(await store.consume(nonce)).toBe(false);
    expect(await store.consume(fresh())).toBe(false);
  });

  it("forgets a nonce after its TTL (injected clock)", async () => {
    const clock = { now: 0 };
    const store = new MemoryNonceStore({ now: () => clock.now });
    const [early, late] = [fresh(), fresh()];
    await store.issue(early, 1_000);
    await store.issue(late, 1_000);
    clock.now = 999;
    expect(await store.consume(early)).toBe(true);
    clock.now = 1_000;
    expect(await store.consume(late)).toBe(false);
  });

  it("stays bounded, forgetting the oldest nonces first", async () => {
    const store = new MemoryNonceStore({ maxNonces: 2 });
    const nonces = [fresh(), fresh(), fresh()];
    for (const nonce of nonces) await store.issue(nonce, 60_000);
    expect(store.size).toBe(2);
    expect(await store.consume(nonces[0]!)).toBe(false);
    expect(await store.consume(nonces[2]!)).toBe(true);
  });
});

describe("RedisNonceStore", () => {
  const clients: Redis[] = [];
  const client = () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };
  afterAll(async () => {
    await Promise.all(clients.map((redis) => redis.quit()));
  });
  const prefix = `test:siwx:${fresh()}:`;

  it("lets a nonce issued by one instance be consumed once, by exactly one of many racing instances", async () => {
    const issuer = new RedisNonceStore({ redis: client(), keyPrefix: prefix });
    const others = [
      new RedisNonceStore({ redis: client(), keyPrefix: prefix }),
      new RedisNonceStore({ redis: client(), keyPrefix: prefix }),
    ];
    const nonce = fresh();
    await issuer.issue(nonce, 60_000);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => others[i % 2]!.consume(nonce)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await issuer.consume(nonce)).toBe(false);
    expect(await issuer.consume(fresh())).toBe(false);
  });

  it("stores the nonce with its TTL (SET NX PX), under the prefix", async () => {
    const redis = client();
    const store = new RedisNonceStore({ redis, keyPrefix: prefix });
    const nonce = fresh();
    await store.issue(nonce, 30_000);
    const ttl = await redis.pttl(prefix + nonce);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it("opens and closes its own connection from a URL", async () => {
    const store = new RedisNonceStore({ redis: REDIS_URL, keyPrefix: prefix });
    const nonce = fresh();
    await store.issue(nonce, 60_000);
    expect(await store.consume(nonce)).toBe(true);
    await store.close();
  });
});
