import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../src/common/Logger.js";
import { MemoryRevokedPayers } from "../../src/recognition/MemoryRevokedPayers.js";
import { RecognitionCache } from "../../src/recognition/RecognitionCache.js";
import { RecognitionError } from "../../src/recognition/RecognitionError.js";
import type { Recognizer } from "../../src/recognition/Recognizer.js";
import { RedisRevokedPayers } from "../../src/recognition/RedisRevokedPayers.js";
import { RevocationUnavailableError } from "../../src/recognition/RevocationUnavailableError.js";
import type { RevokedPayers } from "../../src/recognition/RevokedPayers.js";
import { closedPort } from "../gateway/support/startUpstream.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ALICE = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
const BOB = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2";
const MINUTE = 60_000;
const HOLD = 70 * MINUTE;

/** A chain whose answers the test sets; `fail` makes it throw like a dead node; `gate` holds a call. */
class ScriptedSource implements Recognizer {
  calls = 0;
  answers = new Map<string, boolean>();
  fail: RecognitionError | undefined;
  gate: Promise<void> | undefined;

  async isRecognized(address: string): Promise<boolean> {
    this.calls += 1;
    await this.gate;
    if (this.fail) throw this.fail;
    return this.answers.get(address.toLowerCase()) ?? false;
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

/** A logger that hands each event to `on`. */
function eventLogger(on: (event: string) => void): Logger {
  const log = (fields: Record<string, unknown>) => on(String(fields.event));
  return { info: log, warn: log, error: log, debug: log } as unknown as Logger;
}

type Make = (clock: { now: number }, options?: { prefix?: string; logger?: Logger }) => RevokedPayers;

const implementations: Array<[string, Make]> = [
  ["in memory", (clock) => new MemoryRevokedPayers({ holdMs: HOLD, now: () => clock.now })],
  [
    "in Redis",
    (clock, options = {}) =>
      new RedisRevokedPayers({
        url: REDIS_URL,
        keyPrefix: options.prefix ?? `test:revoked:${randomUUID()}:`,
        holdMs: HOLD,
        now: () => clock.now,
        logger: options.logger,
      }),
  ],
];

function setup(make: Make, options?: { prefix?: string; logger?: Logger }) {
  // Real epoch ms: Redis expires the set at the revocation's end.
  const clock = { now: Date.now() };
  const source = new ScriptedSource();
  source.answers.set(ALICE.toLowerCase(), true);
  source.answers.set(BOB.toLowerCase(), true);
  const revokedPayers = make(clock, options);
  opened.push(revokedPayers);
  const cache = new RecognitionCache({
    source,
    positiveTtlMs: 10 * MINUTE,
    staleIfErrorMs: 60 * MINUTE,
    now: () => clock.now,
    revokedPayers,
  });
  return { clock, source, revokedPayers, cache };
}

describe.each(implementations)("revoked payers %s, in front of a RecognitionCache", (_name, make) => {
  it("drops a revoked payer at once: the next check is not recognized without asking the chain", async () => {
    const { source, revokedPayers, cache } = setup(make);
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "rpc" });
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "cache" });
    const revocation = await revokedPayers.revoke(ALICE.toUpperCase().replace("0X", "0x"), {
      reason: "refund",
    });
    expect(revocation).toMatchObject({ payer: ALICE.toLowerCase(), reason: "refund" });
    expect(await cache.check(ALICE)).toEqual({ recognized: false, source: "revoked" });
    expect(cache.stats()).toMatchObject({ entries: 0, revoked: 1 });
    expect(source.calls).toBe(1);
    // Another payer is untouched.
    expect(await cache.check(BOB)).toEqual({ recognized: true, source: "rpc" });
  });

  it("keeps the payer denied for the hold while the chain still answers 0x1, then recognizes it again", async () => {
    const { clock, revokedPayers, cache } = setup(make);
    const { until } = await revokedPayers.revoke(ALICE);
    expect(until).toBe(clock.now + HOLD);
    clock.now += 30 * MINUTE; // past the positive TTL: the chain is asked again, and says 0x1
    expect(await cache.check(ALICE)).toEqual({ recognized: false, source: "revoked" });
    clock.now = until - 1;
    expect((await cache.check(ALICE)).recognized).toBe(false);
    clock.now = until;
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "rpc" });
  });

  it("never serves a stale 0x1 of a revoked payer while the node fails", async () => {
    const { clock, source, revokedPayers, cache } = setup(make);
    expect((await cache.check(ALICE)).recognized).toBe(true);
    expect((await cache.check(BOB)).recognized).toBe(true);
    source.fail = new RecognitionError("transport", "node down");
    clock.now += 11 * MINUTE;
    expect(await cache.check(BOB)).toMatchObject({ recognized: true, source: "stale" });
    await revokedPayers.revoke(ALICE);
    expect(await cache.check(ALICE)).toEqual({ recognized: false, source: "revoked" });
  });

  it("does not keep a 0x1 that was in flight when the payer was revoked", async () => {
    const { source, revokedPayers, cache } = setup(make);
    let release = () => undefined as void;
    source.gate = new Promise<void>((resolve) => (release = resolve));
    const inFlight = cache.check(ALICE);
    await revokedPayers.revoke(ALICE);
    release();
    expect(await inFlight).toEqual({ recognized: false, source: "revoked" });
    expect(cache.stats().entries).toBe(0);
  });

  it("keeps the longer of two revocations of one payer", async () => {
    const { clock, revokedPayers } = setup(make);
    const long = await revokedPayers.revoke(ALICE, { until: clock.now + 2 * HOLD });
    const short = await revokedPayers.revoke(ALICE);
    expect(short.until).toBe(long.until);
  });
});

describe("revoked payers shared in Redis", () => {
  it("a revocation at one instance is refused at the other on its next check, and its cache forgets", async () => {
    const prefix = `test:revoked:${randomUUID()}:`;
    const make = implementations[1]![1];
    const a = setup(make, { prefix });
    let heard: () => void = () => undefined;
    const heardAtB = new Promise<void>((resolve) => (heard = resolve));
    let loaded: () => void = () => undefined;
    const subscribed = new Promise<void>((resolve) => (loaded = resolve));
    const b = setup(make, {
      prefix,
      logger: eventLogger((event) => {
        if (event === "revocation_heard") heard();
        if (event === "revocations_loaded") loaded();
      }),
    });
    await subscribed;
    expect((await b.cache.check(ALICE)).recognized).toBe(true);
    await a.revokedPayers.revoke(ALICE, { reason: "refund" });
    // No waiting for the message: B asks Redis before admitting a 0x1.
    expect(await b.cache.check(ALICE)).toEqual({ recognized: false, source: "revoked" });
    await heardAtB;
    expect(b.revokedPayers.deniedHere(ALICE.toLowerCase())).toBe(true);
    expect(b.cache.stats().entries).toBe(0);
  });

  it("reloads the set and clears its cache on resubscription, so a missed message admits no one", async () => {
    const prefix = `test:revoked:${randomUUID()}:`;
    const loads: Array<() => void> = [];
    const nextLoad = () => new Promise<void>((resolve) => loads.push(resolve));
    const firstLoad = nextLoad();
    const b = setup(implementations[1]![1], {
      prefix,
      logger: eventLogger((event) => {
        if (event === "revocations_loaded") loads.shift()?.();
      }),
    });
    await firstLoad;
    expect((await b.cache.check(BOB)).recognized).toBe(true);
    expect(b.cache.stats().entries).toBe(1);
    const admin = new Redis(REDIS_URL);
    try {
      // Revoked behind B's back (no message), while B's subscription is cut.
      await admin.zadd(`${prefix}payers`, b.clock.now + HOLD, ALICE.toLowerCase());
      const reloaded = nextLoad();
      const clients = (await admin.call("CLIENT", "LIST", "TYPE", "pubsub")) as string;
      const ids = clients
        .split("\n")
        .filter((line) => line.includes(`name=${prefix}subscriber`))
        .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
      expect(ids).toHaveLength(1);
      await admin.client("KILL", "ID", ids[0]!);
      await reloaded;
    } finally {
      await admin.quit();
    }
    expect(b.revokedPayers.deniedHere(ALICE.toLowerCase())).toBe(true);
    expect(b.cache.stats().entries).toBe(0);
  });

  it("with Redis down: revoke fails loudly (but denies here), and a 0x1 is not recognized (fail closed)", async () => {
    const clock = { now: Date.now() };
    const revokedPayers = new RedisRevokedPayers({
      url: `redis://127.0.0.1:${await closedPort()}`,
      commandTimeoutMs: 300,
      now: () => clock.now,
    });
    opened.push(revokedPayers);
    const source = new ScriptedSource();
    source.answers.set(BOB.toLowerCase(), true);
    const cache = new RecognitionCache({ source, now: () => clock.now, revokedPayers });
    const failure = await revokedPayers.revoke(ALICE).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RevocationUnavailableError);
    expect(failure).toMatchObject({ code: "revocation_unavailable", status: 503 });
    expect(revokedPayers.deniedHere(ALICE.toLowerCase())).toBe(true);
    const check = await cache.check(BOB);
    expect(check).toMatchObject({ recognized: false, source: "error" });
    expect(check.error?.kind).toBe("revocations_unavailable");
  });
});
