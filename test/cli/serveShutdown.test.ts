import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { startUpstream } from "../gateway/support/startUpstream.js";
import { collect, spawnCli, waitForLine } from "./support/runCli.js";

let stack: LocalStack;
let upstream: Awaited<ReturnType<typeof startUpstream>>;

beforeAll(async () => {
  [stack, upstream] = await Promise.all([startLocalStack(), startUpstream()]);
});

afterAll(async () => {
  await upstream?.stop();
  await stack?.stop();
});

describe("x402-gateway serve: SIGTERM during a held response", () => {
  it("finishes the upstream answer and its settlement, then exits 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-drain-"));
    const file = join(dir, "gateway.yaml");
    await writeFile(
      file,
      `listen: { host: 127.0.0.1, port: 0 }
facilitator: { url: "${stack.facilitatorUrl}" }
payTo: ${stack.accounts.payee.address}
network: eip155:31337
assets:
  - { network: eip155:31337, address: ${stack.token.address}, decimals: 6, name: USDC, version: "2" }
upstreams:
  - url: ${upstream.url}
routes:
  GET /release: { price: $0.01 }
limits: { drainTimeoutMs: 20000 }
logging: { level: info }
`,
    );
    const child = spawnCli("src/cli/x402-gateway.ts", ["serve", "--config", file]);
    const done = collect(child);
    const [, url] = await waitForLine(child, /x402-gateway listening on (http:\/\/\S+)/);
    const settles = stack.facilitator.calls.settle;
    const before = await stack.balanceOf(stack.accounts.payee.address);

    const arrived = upstream.nextRequest();
    const pending = createPayingFetch({
      privateKey: stack.accounts.payer.privateKey,
      allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
    }).fetch(`${url}/release`);
    await arrived;
    const draining = waitForLine(child, /"msg":"draining"/, "the draining log line");
    child.kill("SIGTERM");
    await draining;
    upstream.release();

    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ released: true });
    expect(response.headers.get("payment-response")).toBeTruthy();
    const result = await done;
    expect(result.code).toBe(0);
    // The bin's last word, after the drain: what a process manager's journal shows.
    // The bin's last word about the drain, after it: what a process manager's journal shows.
    const messages = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => (JSON.parse(line) as { msg: string; signal?: string }).msg);
    expect(messages.filter((msg) => msg === "stopped")).toHaveLength(1);
    expect(messages.indexOf("stopped")).toBeGreaterThan(messages.indexOf("draining"));
    expect(result.stdout).toMatch(/"signal":"SIGTERM","msg":"stopped"/);
    expect(stack.facilitator.calls.settle).toBe(settles + 1);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before + 10_000n);
  }, 60_000);
});
