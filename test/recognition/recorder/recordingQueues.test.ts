import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { startStarknetStandIn } from "../../../src/dev/startStarknetStandIn.js";
import { RedisRecordingQueue } from "../../../src/recognition/recorder/RedisRecordingQueue.js";
import type { RecordingQueue } from "../../../src/recognition/recorder/RecordingQueue.js";
import { SqliteRecordingQueue } from "../../../src/recognition/recorder/SqliteRecordingQueue.js";
import { minimalFelt } from "../../../src/starknet/StarknetRpc.js";
import { testRecorder } from "./support/startRecorder.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const opened: RecordingQueue[] = [];
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const queue of opened.splice(0)) await queue.close();
});

const makers: Array<[string, (name: string) => Promise<RecordingQueue>]> = [
  [
    "SQLite",
    async (name) =>
      new SqliteRecordingQueue(join(await mkdtemp(join(tmpdir(), "x402-queue-")), `${name}.sqlite`)),
  ],
  ["Redis", async (name) => new RedisRecordingQueue({ url: REDIS_URL, keyPrefix: `test:recorder:${name}:` })],
];

describe.each(makers)("the recorder's queue on %s", (_name, make) => {
  const open = async (name = randomUUID()) => {
    const queue = await make(name);
    opened.push(queue);
    return queue;
  };
  const A = { contract: "0x1", payer: "0xa" };
  const B = { contract: "0x1", payer: "0xb" };
  const C = { contract: "0x2", payer: "0xa" };

  it("queues a key once ever, hands out due ones oldest first, and moves them through sent, back to pending, to done", async () => {
    const queue = await open();
    expect(await queue.enqueue(A, 1_000)).toBe(true);
    expect(await queue.enqueue(A, 1_001)).toBe(false);
    expect(await queue.enqueue(B, 1_002)).toBe(true);
    expect(await queue.enqueue(C, 5_000)).toBe(true);
    expect((await queue.due(2_000, 10)).map((r) => r.key)).toEqual(["0x1:0xa", "0x1:0xb"]);
    expect(await queue.inFlight()).toBeUndefined();
    await queue.markSent({ hash: "0xh", nonce: "0x0", transaction: "{}", sentAt: 2_000 }, [
      "0x1:0xa",
      "0x1:0xb",
    ]);
    expect(await queue.due(9_000, 10)).toEqual([expect.objectContaining({ key: "0x2:0xa" })]);
    const batch = await queue.inFlight();
    expect(batch).toMatchObject({ hash: "0xh", nonce: "0x0", transaction: "{}", sentAt: 2_000 });
    expect(batch!.recordings.map((r) => r.key).sort()).toEqual(["0x1:0xa", "0x1:0xb"]);
    await queue.markDone(["0x1:0xa"], 3_000);
    expect((await queue.inFlight())?.recordings.map((r) => r.key)).toEqual(["0x1:0xb"]);
    await queue.reschedule(["0x1:0xb"], 4_000, "reverted");
    expect(await queue.inFlight()).toBeUndefined();
    expect(await queue.due(3_999, 10)).toEqual([]);
    expect(await queue.due(4_000, 10)).toEqual([expect.objectContaining({ key: "0x1:0xb", attempts: 1 })]);
    // done stays done: no reschedule, no enqueue brings it back
    await queue.reschedule(["0x1:0xa"], 0, "late");
    expect(await queue.enqueue(A, 9_000)).toBe(false);
    expect(await queue.stats()).toMatchObject({ pending: 2, inFlight: 0, recorded: 1 });
  });

  it("a lease is held by one owner at a time, renewed by its holder", async () => {
    const queue = await open();
    expect(await queue.lease("one", 60_000)).toBe(true);
    expect(await queue.lease("one", 60_000)).toBe(true);
    const other = await queue.lease("two", 60_000);
    // one process per SQLite file: its lease is always its own
    expect(other).toBe(queue instanceof SqliteRecordingQueue);
  });

  it("any sequence of operations keeps each key in exactly one state, done ones counted once (property)", async () => {
    const keys = ["0x1:0xa", "0x1:0xb", "0x1:0xc"];
    const payerOf = (key: string) => ({ contract: "0x1", payer: key.split(":")[1]! });
    const op = fc.oneof(
      fc.record({ kind: fc.constant("enqueue" as const), key: fc.constantFrom(...keys) }),
      fc.record({ kind: fc.constant("send" as const), keys: fc.subarray(keys) }),
      fc.record({ kind: fc.constant("done" as const), keys: fc.subarray(keys) }),
      fc.record({ kind: fc.constant("again" as const), keys: fc.subarray(keys) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const queue = await open();
        const model = new Map<string, "pending" | "sent" | "done">();
        for (const step of ops) {
          if (step.kind === "enqueue") {
            expect(await queue.enqueue(payerOf(step.key), 0)).toBe(!model.has(step.key));
            if (!model.has(step.key)) model.set(step.key, "pending");
          } else if (step.kind === "send") {
            const pending = step.keys.filter((key) => model.get(key) === "pending");
            if (pending.length === 0) continue;
            await queue.markSent({ hash: "0x1", nonce: "0x1", transaction: "{}", sentAt: 0 }, pending);
            for (const key of pending) model.set(key, "sent");
          } else if (step.kind === "done") {
            const known = step.keys.filter((key) => model.has(key));
            await queue.markDone(known, 0);
            for (const key of known) model.set(key, "done");
          } else {
            const known = step.keys.filter((key) => model.has(key));
            await queue.reschedule(known, 0, "x");
            for (const key of known) if (model.get(key) !== "done") model.set(key, "pending");
          }
        }
        const count = (state: string) => [...model.values()].filter((s) => s === state).length;
        expect(await queue.stats()).toMatchObject({
          pending: count("pending"),
          inFlight: count("sent"),
          recorded: count("done"),
        });
        expect((await queue.due(1, 10)).map((r) => r.key).sort()).toEqual(
          [...model]
            .filter(([, s]) => s === "pending")
            .map(([key]) => key)
            .sort(),
        );
      }),
      { numRuns: 40 },
    );
  });
});

describe("two gateways sharing one Redis queue", () => {
  it(
    "both queue payers, one writes at a time (the lease), and each payer is written once",
    { timeout: 60_000 },
    async () => {
      const node = await startStarknetStandIn();
      stops.push(() => node.stop());
      const prefix = `test:recorder:${randomUUID()}:`;
      const queues = [0, 1].map(() => new RedisRecordingQueue({ url: REDIS_URL, keyPrefix: prefix }));
      opened.push(...queues);
      const recorders = queues.map((queue) => testRecorder({ queue, rpcUrl: node.rpcUrl, batchSize: 4 }));
      for (const recorder of recorders) stops.push(() => recorder.stop());
      const payers = Array.from({ length: 12 }, (_, i) => minimalFelt(0xbee000n + BigInt(i)));
      // every payer queued at both gateways (as if both saw a payment event for it)
      for (const payer of payers) {
        for (const recorder of recorders) await recorder.record({ contract: node.contract, payer });
      }
      for (const recorder of recorders) recorder.start();
      await expect.poll(async () => (await queues[0]!.stats()).recorded, { timeout: 30_000 }).toBe(12);
      const counts = new Map<string, number>();
      for (const { payer } of node.recordCalls()) counts.set(payer, (counts.get(payer) ?? 0) + 1);
      expect([...counts].sort()).toEqual(payers.map((payer) => [payer, 1]).sort());
    },
  );
});
