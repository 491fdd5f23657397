import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findFreePort } from "../../../src/dev/findFreePort.js";
import {
  STAND_IN_REGISTRY_CONTRACT,
  startStarknetStandIn,
  type RunningStarknetStandIn,
} from "../../../src/dev/startStarknetStandIn.js";
import { SqliteRecordingQueue } from "../../../src/recognition/recorder/SqliteRecordingQueue.js";
import type { RecorderEvent } from "../../../src/recognition/recorder/StarknetPayerRecorder.js";
import { minimalFelt } from "../../../src/starknet/StarknetRpc.js";
import { testRecorder } from "./support/startRecorder.js";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

const payers = (count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => minimalFelt(0xabc000n + BigInt(from + index)));

async function setUp(batchSize = 3) {
  const node = await startStarknetStandIn();
  cleanup.push(() => node.stop());
  const dir = await mkdtemp(join(tmpdir(), "x402-recorder-"));
  const queue = new SqliteRecordingQueue(join(dir, "queue.sqlite"));
  cleanup.push(() => queue.close());
  const events: RecorderEvent[] = [];
  const recorder = testRecorder({ queue, rpcUrl: node.rpcUrl, batchSize, onEvent: (e) => events.push(e) });
  cleanup.push(() => recorder.stop());
  return { node, queue, recorder, events, dir };
}

/** How often each payer was written by a transaction (a payer written twice counts 2). */
function writes(node: RunningStarknetStandIn): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { payer } of node.recordCalls()) counts.set(payer, (counts.get(payer) ?? 0) + 1);
  return counts;
}

describe("the payer recorder (production writer of recognition)", () => {
  it("writes each queued payer once, in batches of invoke transactions, and est_ouverte turns 0x1", async () => {
    const { node, queue, recorder, events } = await setUp(3);
    const all = payers(7);
    for (const payer of all) expect(await recorder.record({ contract: node.contract, payer })).toBe(true);
    await recorder.drain();
    expect([...writes(node)]).toEqual(all.map((payer) => [payer, 1]));
    expect(events.filter((e) => e.kind === "sent")).toHaveLength(3);
    expect(await queue.stats()).toMatchObject({ pending: 0, inFlight: 0, recorded: 7 });
    const rpc = await fetch(node.rpcUrl, {
      method: "POST",
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "starknet_getNonce",
        params: { block_id: "latest", contract_address: node.devAccounts[0]!.address },
      }),
    });
    expect(((await rpc.json()) as { result: string }).result).toBe("0x3");
  });

  it("de-duplicates: a payer queued twice is written once; one already on chain is done without a transaction", async () => {
    const { node, queue, recorder, events } = await setUp(5);
    const [first, second] = payers(2);
    node.record(second!);
    expect(await recorder.record({ contract: node.contract, payer: first! })).toBe(true);
    expect(await recorder.record({ contract: node.contract, payer: first! })).toBe(false);
    expect(await recorder.record({ contract: node.contract, payer: second! })).toBe(true);
    await recorder.drain();
    expect([...writes(node)]).toEqual([[first, 1]]);
    expect(events).toContainEqual({ kind: "recorded", count: 1, alreadyOnChain: true });
    // done stays done: queued again later, nothing more is written
    expect(await recorder.record({ contract: node.contract, payer: first! })).toBe(false);
    expect(await queue.stats()).toMatchObject({ pending: 0, recorded: 2 });
  });

  it("keeps one registry per resource: a payer is written to the contract of what it paid for", async () => {
    const { node, recorder } = await setUp(4);
    const other = node.deployRegistry("GET /api/other");
    const [payer] = payers(1);
    await recorder.record({ contract: other, payer: payer! });
    await recorder.drain();
    expect(node.recordCalls()).toEqual([expect.objectContaining({ contract: other, payer })]);
    expect(node.recorded().map((r) => r.contract)).toEqual([other]);
  });

  it("loses nothing while the node is down: the queue waits, health says why, and all is written once it is back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "x402-recorder-"));
    const queue = new SqliteRecordingQueue(join(dir, "queue.sqlite"));
    cleanup.push(() => queue.close());
    const port = await findFreePort();
    const recorder = testRecorder({ queue, rpcUrl: `http://127.0.0.1:${port}/rpc/v0_10` });
    cleanup.push(() => recorder.stop());
    const all = payers(4);
    for (const payer of all) await recorder.record({ contract: STAND_IN_REGISTRY_CONTRACT, payer });
    recorder.start();
    await expect
      .poll(() => recorder.health(), { timeout: 10_000 })
      .toMatchObject({ ok: false, reason: "rpc_unreachable" });
    expect(await queue.stats()).toMatchObject({ pending: 4, inFlight: 0, recorded: 0 });

    const node = await startStarknetStandIn({ port });
    cleanup.push(() => node.stop());
    await expect.poll(async () => (await queue.stats()).recorded, { timeout: 15_000 }).toBe(4);
    expect([...writes(node)].sort()).toEqual(all.map((payer) => [payer, 1]).sort());
    await expect.poll(() => recorder.health(), { timeout: 5_000 }).toEqual({ ok: true });
  });
});
