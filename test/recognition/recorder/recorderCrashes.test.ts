import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, request as httpRequest, type Server } from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { STAND_IN_REGISTRY_CONTRACT, startStarknetStandIn } from "../../../src/dev/startStarknetStandIn.js";
import { RecognitionRegistry } from "../../../src/dev/starknetStandIn/RecognitionRegistry.js";
import { listenOnLoopback, closeServer } from "../../../src/dev/loopbackServer.js";
import { SqliteRecordingQueue } from "../../../src/recognition/recorder/SqliteRecordingQueue.js";
import { minimalFelt } from "../../../src/starknet/StarknetRpc.js";
import { testRecorder } from "./support/startRecorder.js";

const SUPPORT = new URL("./support/", import.meta.url).pathname;
const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

const payers = (count: number) =>
  Array.from({ length: count }, (_, index) => minimalFelt(0xfee000n + BigInt(index)));

/** A tsx child process whose stdout lines are JSON; `next` waits for the first line that passes a test. */
function child(
  script: string,
  args: string[],
): {
  process: ChildProcess;
  next: (test: (line: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
} {
  const proc = spawn(process.execPath, ["--import", "tsx", join(SUPPORT, script), ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanup.push(() => proc.kill("SIGKILL"));
  const waiting: Array<{
    test: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
    reject: (error: Error) => void;
  }> = [];
  createInterface({ input: proc.stdout! }).on("line", (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    for (const waiter of [...waiting]) {
      if (waiter.test(line)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  let exited = false;
  proc.on("exit", (code, signal) => {
    exited = true;
    for (const waiter of waiting.splice(0))
      waiter.reject(new Error(`${script} exited (${code ?? signal}) first`));
  });
  return {
    process: proc,
    next: (test) =>
      new Promise((resolve, reject) => {
        if (exited) reject(new Error(`${script} has exited`));
        else waiting.push({ test, resolve, reject });
      }),
  };
}

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGKILL");
  await once(proc, "exit");
}

/** How often each payer was written, from the stand-in's own file. */
function writesIn(file: string): Map<string, number> {
  const registry = new RecognitionRegistry(file, STAND_IN_REGISTRY_CONTRACT);
  try {
    const counts = new Map<string, number>();
    for (const { payer } of registry.recordCalls()) counts.set(payer, (counts.get(payer) ?? 0) + 1);
    return counts;
  } finally {
    registry.close();
  }
}

describe("the payer recorder under kill -9: every paying payer is recorded exactly once", () => {
  it(
    "the recorder killed mid-queue (twice), then restarted on its queue file",
    { timeout: 120_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "x402-recorder-crash-"));
      const chainFile = join(dir, "layer2.sqlite");
      const node = await startStarknetStandIn({ file: chainFile });
      cleanup.push(() => node.stop());
      const queueFile = join(dir, "queue.sqlite");
      const queue = new SqliteRecordingQueue(queueFile);
      cleanup.push(() => queue.close());
      const all = payers(20);
      for (const payer of all) await queue.enqueue({ contract: node.contract, payer }, Date.now());

      // 1: killed as soon as its first transaction went out
      const first = child("recorderProcess.ts", [queueFile, node.rpcUrl, "3"]);
      await first.next((event) => event.kind === "sent");
      await kill(first.process);
      // 2: killed at its second event, whatever it is (mid-batch, between writing the batch and sending it…)
      const second = child("recorderProcess.ts", [queueFile, node.rpcUrl, "3"]);
      let seen = 0;
      await second.next(() => ++seen === 2);
      await kill(second.process);
      const midway = await queue.stats();
      expect(midway.recorded).toBeLessThan(20);
      // 3: runs to the end
      const third = child("recorderProcess.ts", [queueFile, node.rpcUrl, "3"]);
      await expect
        .poll(async () => (await queue.stats()).recorded, { timeout: 60_000, interval: 200 })
        .toBe(20);
      await kill(third.process);
      await node.stop();
      cleanup.pop();
      expect([...writesIn(chainFile)].sort()).toEqual(all.map((payer) => [payer, 1]).sort());
    },
  );

  it(
    "the node killed mid-write (after it took a transaction and before it answered, and before it took one)",
    { timeout: 120_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "x402-recorder-crash-"));
      const chainFile = join(dir, "layer2.sqlite");
      let node = child("standInProcess.ts", [chainFile]);
      let target = (await node.next((line) => typeof line.rpcUrl === "string")).rpcUrl as string;

      // The recorder talks to the node through this proxy, which kills the node at chosen writes.
      let invokes = 0;
      const killedAt: string[] = [];
      const restart = async () => {
        await kill(node.process);
        node = child("standInProcess.ts", [chainFile]);
        target = (await node.next((line) => typeof line.rpcUrl === "string")).rpcUrl as string;
      };
      let restarting: Promise<void> | undefined;
      const proxy: Server = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const isInvoke = body.includes("starknet_addInvokeTransaction");
        if (isInvoke) invokes++;
        if (isInvoke && invokes === 4) {
          killedAt.push("before the write");
          restarting = restart();
          return res.destroy();
        }
        try {
          const answer = await forward(target, body);
          if (isInvoke && invokes === 2) {
            killedAt.push("after the write, before the answer");
            restarting = restart();
            return res.destroy();
          }
          res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
        } catch {
          res.destroy();
        }
      });
      const { url } = await listenOnLoopback(proxy);
      cleanup.push(() => closeServer(proxy));

      const queue = new SqliteRecordingQueue(join(dir, "queue.sqlite"));
      cleanup.push(() => queue.close());
      const recorder = testRecorder({ queue, rpcUrl: `${url}/rpc/v0_10`, batchSize: 3 });
      cleanup.push(() => recorder.stop());
      const all = payers(15);
      for (const payer of all) await recorder.record({ contract: STAND_IN_REGISTRY_CONTRACT, payer });
      recorder.start();
      await expect
        .poll(async () => (await queue.stats()).recorded, { timeout: 60_000, interval: 200 })
        .toBe(15);
      await recorder.stop();
      await restarting;
      await kill(node.process);
      expect(killedAt).toEqual(["after the write, before the answer", "before the write"]);
      expect([...writesIn(chainFile)].sort()).toEqual(all.map((payer) => [payer, 1]).sort());
    },
  );
});

function forward(target: string, body: Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      target,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    out.on("error", reject);
    out.end(body);
  });
}
