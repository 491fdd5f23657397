import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { starknetDevAccount } from "../../src/dev/starknetDevAccounts.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { inspectConfig } from "../../src/config/loadConfig.js";
import type { GatewayConfig } from "../../src/config/gatewayConfigSchema.js";
import { StarknetRecognizer } from "../../src/recognition/StarknetRecognizer.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";
import { stackPayer } from "../support/stackPayer.js";

const PRICE = 1_000n;
const KEY_ENV = "X402_TEST_RECORDER_KEY";
// An account of the resource owner's, deployed on the stand-in before the gateway starts.
const writer = starknetDevAccount(7);

let stack: LocalStack;
let upstream: TestUpstream;
let gateway: RunningGateway;
let config: GatewayConfig;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "x402-recorder-gw-"));
  // the stack's own recorder is not used here: the gateway's `recorder` writes, by transactions
  [stack, upstream] = await Promise.all([
    startLocalStack({ layer2File: join(dir, "layer2.sqlite") }),
    startUpstream(),
  ]);
  expect(stack.layer2.deployAccount(writer.publicKey)).toBe(writer.address);
  const port = await findFreePort("127.0.0.1");
  const price = { amount: PRICE.toString(), asset: stack.token.address };
  config = gatewayConfig({
    upstreamUrl: upstream.url,
    facilitatorUrl: stack.facilitatorUrl,
    listen: { host: "127.0.0.1", port },
    publicUrl: `http://127.0.0.1:${port}`,
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    assets: [
      { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    recognition: { rpcUrl: stack.layer2.url, contract: stack.layer2.contract, negativeTtlMs: 0 },
    routes: { "GET /a": { price }, "GET /plain": { price, recognition: false } },
    recorder: {
      account: writer.address,
      privateKeyEnv: KEY_ENV,
      queue: { file: join(dir, "recorder.sqlite") },
      intervalMs: 50,
    },
    metrics: { enabled: true, listen: { host: "127.0.0.1", port: 0 } },
  });
  process.env[KEY_ENV] = writer.privateKey;
  gateway = await createGateway(config).listen();
}, 120_000);

afterAll(async () => {
  delete process.env[KEY_ENV];
  await gateway?.close();
  await upstream?.stop();
  await stack?.stop();
});

const payer = () => stack.accounts.payer;
const { pay, signIn } = stackPayer(
  () => stack,
  () => gateway.url,
);

describe("the gateway's payer recorder (recorder: in the config) on the layer-2 stand-in", () => {
  it("a paid request on a recognized route is written by an invoke transaction of the recorder's account; the payer then signs in", async () => {
    const recognizer = new StarknetRecognizer({ rpcUrl: stack.layer2.url, contract: stack.layer2.contract });
    const payeeBefore = await stack.balanceOf(stack.accounts.payee.address);
    expect((await pay("/plain")).status).toBe(200);
    expect((await pay("/a")).status).toBe(200);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(payeeBefore + 2n * PRICE);
    await expect.poll(() => recognizer.estOuverte(payer().address), { timeout: 20_000 }).toBe("0x1");
    // one write, of this payer only (the unrecognized route recorded nothing), by a transaction
    expect(stack.layer2.recordCalls()).toEqual([
      expect.objectContaining({ contract: stack.layer2.contract, payer: payer().address.toLowerCase() }),
    ]);
    expect(await signIn("/a")).toBe(200);
    // paying again queues nothing new: the payer is recorded once
    expect((await pay("/a")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.layer2.recordCalls()).toHaveLength(1);

    const ready = (await (await fetch(`${gateway.url}/readyz`)).json()) as { checks: unknown[] };
    expect(ready.checks).toContainEqual({ name: "recorder", ok: true, advisory: true });
    const metrics = await (await fetch(gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/^x402_recorder_recorded_total 1$/m);
    expect(metrics).toMatch(/^x402_recorder_queue\{state="pending"\} 0$/m);
  });
});

describe("the recorder's settings are refused at start-up when they cannot work", () => {
  const base = () => ({ account: writer.address, queue: { file: join(dir, "q2.sqlite") } });

  it("a key variable that is unset, or not a key, stops listen() with a message naming the variable", async () => {
    for (const [value, message] of [
      [undefined, /X402_TEST_UNSET_KEY is not set/],
      ["nope", /X402_TEST_UNSET_KEY is not a felt/],
      ["0x0", /no Stark private key/],
    ] as const) {
      if (value === undefined) delete process.env.X402_TEST_UNSET_KEY;
      else process.env.X402_TEST_UNSET_KEY = value;
      const bad = {
        ...config,
        listen: { ...config.listen, port: 0 },
        recorder: { ...config.recorder!, ...base(), privateKeyEnv: "X402_TEST_UNSET_KEY" },
      };
      await expect(createGateway(bad).listen()).rejects.toThrow(message);
    }
    delete process.env.X402_TEST_UNSET_KEY;
  });

  it("the config file: exactly one key source, a Redis ledger for a shared queue, one node for reading and writing", async () => {
    const write = async (recorder: unknown, extra = "") => {
      const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
      await writeFile(
        file,
        JSON.stringify({
          facilitator: { url: "http://127.0.0.1:9" },
          payTo: stack.accounts.payee.address,
          network: "eip155:84532",
          upstreams: [{ url: "http://127.0.0.1:9" }],
          publicUrl: "https://api.example",
          recognition: { rpcUrl: stack.layer2.url, contract: stack.layer2.contract },
          routes: { "GET /a": { price: "$0.01" } },
          recorder,
          ...(extra ? JSON.parse(extra) : {}),
        }),
      );
      return inspectConfig(file);
    };
    const both = await write({
      ...base(),
      privateKeyEnv: "K",
      keystore: { file: "k.json", passwordFile: "p" },
    });
    expect(both.problems.map((p) => p.message).join(" ")).toMatch(
      /exactly one of privateKeyEnv and keystore/,
    );
    const neither = await write(base());
    expect(neither.problems.map((p) => p.message).join(" ")).toMatch(
      /exactly one of privateKeyEnv and keystore/,
    );
    const relative = await write({ ...base(), privateKeyEnv: "K", queue: { file: "data/q.sqlite" } });
    expect(relative.problems.map((p) => p.message)).toEqual([]);
    expect(relative.config!.recorder!.queue).toEqual({ file: join(dir, "data/q.sqlite") });
    expect(() =>
      createGateway({ ...relative.config!, recorder: { ...relative.config!.recorder!, queue: "ledger" } }),
    ).toThrow(/needs a Redis ledger/);
    const elsewhere = {
      ...relative.config!,
      routes: {
        ...relative.config!.routes,
        "GET /b": {
          price: "$0.01",
          recognition: { rpcUrl: "https://other.example/rpc/v0_10", contract: "0x1" },
        },
      },
    };
    expect(() => createGateway(elsewhere as GatewayConfig)).toThrow(/one node for both/);
  });
});
