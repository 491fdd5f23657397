import { afterAll, beforeAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";

// The paid path's two round trips (reserve, spend) cost a socket write each per request unless the client
// batches what concurrent requests send in one turn (docs/benchmarks.md, issue #32). The private server's
// read events count the writes that reached it.
let server: RedisServer;
let probe: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  probe = new Redis(server.url);
});
afterAll(async () => {
  probe.disconnect();
  await server.stop();
});

const readsSoFar = async () => Number(/total_reads_processed:(\d+)/.exec(await probe.info("stats"))?.[1]);

it("concurrent reservations and spent marks reach Redis in a few writes, each payment still booked once", async () => {
  const ledger = new RedisPaymentLedger({ url: server.url, keyPrefix: "batching:" });
  await ledger.reserve("warm-up", { holdMs: 1_000 });
  const ids = Array.from({ length: 200 }, (_, i) => `payment-${i}`);
  const before = await readsSoFar();
  const reserved = await Promise.all(ids.map((id) => ledger.reserve(id, { holdMs: 60_000 })));
  const tokens = reserved.map((outcome) => (outcome.status === "reserved" ? outcome.token : undefined));
  expect(tokens.every((token) => token !== undefined)).toBe(true);
  await Promise.all(
    ids.map((id, i) => ledger.spend(id, tokens[i] as string, { keepUntilMs: Date.now() + 60_000 })),
  );
  const reads = (await readsSoFar()) - before;
  // 400 SETs and 200 DELs, one at a time, were seen to take ~240 read events here; batched, ~5.
  expect(reads).toBeLessThan(30);
  const again = await Promise.all(ids.map((id) => ledger.reserve(id, { holdMs: 60_000 })));
  expect(again.every((outcome) => outcome.status === "spent")).toBe(true);
  await ledger.close();
});
