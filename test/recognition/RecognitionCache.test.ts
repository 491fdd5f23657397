import { afterEach, describe, expect, it } from "vitest";
import { RecognitionCache, type RecognitionObserver } from "../../src/recognition/RecognitionCache.js";
import { RecognitionError } from "../../src/recognition/RecognitionError.js";
import type { Recognizer } from "../../src/recognition/Recognizer.js";
import { StarknetRecognizer } from "../../src/recognition/StarknetRecognizer.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

const ALICE = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
const BOB = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2";
const MINUTE = 60_000;

/** A source whose answers the test sets; counts calls; `fail` makes it throw like a dead node. */
class ScriptedSource implements Recognizer {
  calls = 0;
  answers = new Map<string, boolean>();
  fail: RecognitionError | undefined;

  async isRecognized(address: string): Promise<boolean> {
    this.calls += 1;
    if (this.fail) throw this.fail;
    return this.answers.get(address.toLowerCase()) ?? false;
  }
}

function setup(options: { maxEntries?: number; observer?: RecognitionObserver } = {}) {
  const clock = { now: 1_000_000 };
  const source = new ScriptedSource();
  const cache = new RecognitionCache({
    source,
    positiveTtlMs: 10 * MINUTE,
    negativeTtlMs: 5_000,
    staleIfErrorMs: 60 * MINUTE,
    now: () => clock.now,
    ...options,
  });
  return { clock, source, cache };
}

const down = () => new RecognitionError("transport", "node down");

describe("RecognitionCache", () => {
  it("keeps a 0x1 for positiveTtlMs, then asks again", async () => {
    const { clock, source, cache } = setup();
    source.answers.set(ALICE.toLowerCase(), true);
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "rpc" });
    clock.now += 10 * MINUTE - 1;
    expect(await cache.check(ALICE.toLowerCase())).toEqual({ recognized: true, source: "cache" });
    expect(source.calls).toBe(1);
    clock.now += 1;
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "rpc" });
    expect(source.calls).toBe(2);
  });

  it("keeps a 0x0 only negativeTtlMs, so a fresh payer is recognized seconds later", async () => {
    const { clock, source, cache } = setup();
    expect(await cache.isRecognized(ALICE)).toBe(false);
    clock.now += 4_999;
    expect(await cache.check(ALICE)).toEqual({ recognized: false, source: "cache" });
    source.answers.set(ALICE.toLowerCase(), true); // the receipt lands on the chain
    clock.now += 1;
    expect(await cache.check(ALICE)).toEqual({ recognized: true, source: "rpc" });
    expect(source.calls).toBe(2);
  });

  it("serves a 0x1 stale for staleIfErrorMs while the RPC fails, and no longer", async () => {
    const { clock, source, cache } = setup();
    source.answers.set(ALICE.toLowerCase(), true);
    await cache.check(ALICE);
    source.fail = down();
    clock.now += 10 * MINUTE + 60 * MINUTE - 1;
    const stale = await cache.check(ALICE);
    expect([stale.recognized, stale.source, stale.error?.kind]).toEqual([true, "stale", "transport"]);
    clock.now += 1;
    expect(await cache.check(ALICE)).toMatchObject({ recognized: false, source: "error" });
    expect(cache.stats()).toMatchObject({ staleServed: 1, errors: 2, rpcCalls: 3 });
  });

  it("grants nothing on an error without a positive entry, and does not cache the error", async () => {
    const { clock, source, cache } = setup();
    source.fail = down();
    expect(await cache.check(ALICE)).toMatchObject({ recognized: false, source: "error" });
    expect(await cache.check(ALICE)).toMatchObject({ recognized: false, source: "error" });
    expect(source.calls).toBe(2);
    // A cached 0x0 that expired is no ground for a grant either.
    source.fail = undefined;
    await cache.check(BOB);
    source.fail = down();
    clock.now += 5_000;
    expect(await cache.check(BOB)).toMatchObject({ recognized: false, source: "error" });
    // Any kind of error fails closed, even one the source did not type.
    source.fail = undefined;
    const broken = new RecognitionCache({
      source: { isRecognized: () => Promise.reject(new TypeError("boom")) },
      now: () => clock.now,
    });
    expect(await broken.check(ALICE)).toMatchObject({ recognized: false, source: "error" });
  });

  it("stays bounded by maxEntries, dropping the least recently used", async () => {
    const { source, cache } = setup({ maxEntries: 2 });
    source.answers.set(ALICE.toLowerCase(), true);
    const carol = "0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db";
    await cache.check(ALICE);
    await cache.check(BOB);
    await cache.check(carol);
    expect(cache.stats().entries).toBe(2);
    await cache.check(ALICE);
    expect(source.calls).toBe(4);
  });

  it("counts hits, misses, coalesced misses, calls, errors and latency, and tells the observer", async () => {
    const seen: string[] = [];
    const { source, cache } = setup({
      observer: {
        lookup: (outcome) => seen.push(outcome),
        rpcCall: (_ms, outcome, kind) => seen.push(`rpc:${outcome}${kind ? `:${kind}` : ""}`),
        staleServed: () => seen.push("stale"),
      },
    });
    await Promise.all([cache.check(ALICE), cache.check(ALICE)]);
    await cache.check(ALICE);
    source.fail = down();
    await cache.check(BOB);
    const stats = cache.stats();
    expect(stats).toMatchObject({
      hits: 1,
      misses: 3,
      coalesced: 1,
      rpcCalls: 2,
      errors: 1,
      staleServed: 0,
      entries: 1,
    });
    expect(stats.rpcLatencyMs.count).toBe(2);
    expect(stats.rpcLatencyMs.sum).toBeGreaterThanOrEqual(stats.rpcLatencyMs.max);
    expect(seen).toEqual(["miss", "coalesced", "rpc:not_recognized", "hit", "miss", "rpc:error:transport"]);
  });

  it("forgets an address on request", async () => {
    const { source, cache } = setup();
    source.answers.set(ALICE.toLowerCase(), true);
    await cache.check(ALICE);
    cache.forget(ALICE);
    await cache.check(ALICE);
    expect(source.calls).toBe(2);
  });
});

describe("RecognitionCache in front of a StarknetRecognizer", () => {
  let server: StarknetRpcServer | undefined;
  afterEach(async () => {
    expect(server?.validationFailures ?? []).toEqual([]);
    await server?.close();
    server = undefined;
  });

  it("makes one RPC call for 1,000 concurrent misses of one address", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const cache = new RecognitionCache({
      source: new StarknetRecognizer({ rpcUrl: server.url, contract: "0x123" }),
    });
    const answers = await Promise.all(Array.from({ length: 1_000 }, () => cache.check(ALICE)));
    expect(answers.every((answer) => answer.recognized)).toBe(true);
    expect(server.calls()).toHaveLength(1);
    expect(cache.stats()).toMatchObject({ misses: 1_000, coalesced: 999, rpcCalls: 1 });
    // Afterwards they are hits, with no call at all.
    await Promise.all(Array.from({ length: 1_000 }, () => cache.check(ALICE)));
    expect(server.calls()).toHaveLength(1);
    expect(cache.stats().hits).toBe(1_000);
  });

  it("falls back to the stale 0x1 when the real node starts failing", async () => {
    const clock = { now: 0 };
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const cache = new RecognitionCache({
      source: new StarknetRecognizer({ rpcUrl: server.url, contract: "0x123", timeoutMs: 200 }),
      positiveTtlMs: 1_000,
      staleIfErrorMs: 10_000,
      now: () => clock.now,
    });
    await cache.check(ALICE);
    for (const mode of ["http500", "garbage", "hang", { rpcError: 40 }] as const) {
      server.setMode(mode);
      clock.now += 1_000;
      expect(await cache.check(ALICE)).toMatchObject({ recognized: true, source: "stale" });
      expect(await cache.check(BOB)).toMatchObject({ recognized: false, source: "error" });
    }
  });
});
