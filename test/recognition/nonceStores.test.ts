import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryNonceStore } from "../../src/recognition/MemoryNonceStore.js";
import { RedisNonceStore } from "../../src/recognition/RedisNonceStore.js";
import { SignInNonces } from "../../src/recognition/SignInNonces.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const fresh = () => randomBytes(16).toString("hex");
const NOW = Date.UTC(2026, 10, 23);
const SECRET = "a-secret-shared-by-every-instance-0123456789";

describe("SignInNonces (stateless, HMAC)", () => {
  const nonces = new SignInNonces(SECRET);

  it("accepts its own nonce for the same domain and resource until it expires; 32 hex characters", () => {
    const nonce = nonces.mint("api.example.com", "https://api.example.com/r", NOW + 300_000);
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(nonces.check(nonce, "api.example.com", "https://api.example.com/r", NOW)).toEqual({
      ok: true,
      expiresAtMs: NOW + 300_000,
    });
    expect(nonces.check(nonce, "api.example.com", "https://api.example.com/r", NOW + 300_000)).toMatchObject({
      ok: false,
      reason: "expired",
    });
  });

  it("another instance with the same secret accepts it; another secret, domain or resource does not", () => {
    const nonce = nonces.mint("api.example.com", "https://api.example.com/r", NOW + 300_000);
    expect(
      new SignInNonces(SECRET).check(nonce, "api.example.com", "https://api.example.com/r", NOW).ok,
    ).toBe(true);
    expect(new SignInNonces().check(nonce, "api.example.com", "https://api.example.com/r", NOW).ok).toBe(
      false,
    );
    expect(nonces.check(nonce, "evil.example", "https://api.example.com/r", NOW).ok).toBe(false);
    expect(nonces.check(nonce, "api.example.com", "https://api.example.com/other", NOW).ok).toBe(false);
  });

  it("refuses any altered nonce: a later expiry, another random part, garbage (fast-check)", () => {
    const nonce = nonces.mint("d", "r", NOW + 60_000);
    fc.assert(
      fc.property(fc.nat(31), fc.constantFrom(..."0123456789abcdef"), (at, digit) => {
        const altered = `${nonce.slice(0, at)}${digit}${nonce.slice(at + 1)}`;
        if (altered !== nonce) expect(nonces.check(altered, "d", "r", NOW).ok).toBe(false);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(nonces.check(text, "d", "r", NOW).ok).toBe(text === nonce);
      }),
    );
  });
});

describe("MemoryNonceStore (used nonces only)", () => {
  it("says a nonce is new once, then used until it expires", async () => {
    const clock = { now: NOW };
    const store = new MemoryNonceStore({ now: () => clock.now });
    const nonce = fresh();
    expect(await store.use(nonce, 1_000)).toBe(true);
    expect(await store.use(nonce, 1_000)).toBe(false);
    clock.now += 1_000;
    expect(await store.use(nonce, 1_000)).toBe(true);
  });

  it("never forgets an unexpired used nonce to make room: when full it refuses (fail closed)", async () => {
    const clock = { now: NOW };
    const store = new MemoryNonceStore({ maxNonces: 2, now: () => clock.now });
    const [a, b, c] = [fresh(), fresh(), fresh()];
    expect(await store.use(a, 1_000)).toBe(true);
    expect(await store.use(b, 5_000)).toBe(true);
    expect(await store.use(c, 1_000)).toBe(false);
    expect(await store.use(a, 1_000)).toBe(false);
    clock.now += 1_000;
    expect(await store.use(c, 1_000)).toBe(true);
    expect(await store.use(b, 1_000)).toBe(false);
  });
});

describe("RedisNonceStore (used nonces only)", () => {
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

  it("lets exactly one of many racing instances use a nonce", async () => {
    const stores = [
      new RedisNonceStore({ redis: client(), keyPrefix: prefix }),
      new RedisNonceStore({ redis: client(), keyPrefix: prefix }),
    ];
    const nonce = fresh();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => stores[i % 2]!.use(nonce, 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("stores only the used nonce, with its TTL (SET NX PX), under the prefix", async () => {
    const redis = client();
    const store = new RedisNonceStore({ redis, keyPrefix: prefix });
    const nonce = fresh();
    await store.use(nonce, 30_000);
    const ttl = await redis.pttl(prefix + nonce);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it("opens and closes its own connection from a URL", async () => {
    const store = new RedisNonceStore({ redis: REDIS_URL, keyPrefix: prefix });
    expect(await store.use(fresh(), 60_000)).toBe(true);
    await store.close();
  });
});
