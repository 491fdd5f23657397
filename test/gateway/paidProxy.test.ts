import { decodePaymentResponseHeader } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { startUpstream } from "./support/startUpstream.js";

const PRICE = 10_000n;
let stack: LocalStack;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let gateway: RunningGateway;
const logLines: string[] = [];

beforeAll(async () => {
  [stack, upstream] = await Promise.all([startLocalStack(), startUpstream()]);
  const price = { amount: PRICE.toString(), asset: stack.token.address };
  const priced = { price };
  const config = gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: { url: stack.facilitatorUrl },
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    assets: [
      { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    upstreams: [{ url: upstream.url, timeoutMs: 500 }],
    routes: {
      "GET /paid": priced,
      "POST /paid": priced,
      "GET /500": priced,
      "GET /hang": priced,
      "GET /reset": priced,
      "GET /release": priced,
    },
    limits: { maxBodyBytes: 1000, drainTimeoutMs: 10_000 },
    logging: { level: "silent" },
  });
  const logger = createGatewayLogger("info", { write: (line: string) => void logLines.push(line) });
  gateway = await createGateway(config, { logger }).listen();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await stack?.stop();
});

const pay = () =>
  createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
  }).fetch;

const payee = () => stack.balanceOf(stack.accounts.payee.address);

describe("paid requests through the proxy (official client, facilitator and anvil)", () => {
  it("settles a paid request: 200 from the upstream, PAYMENT-RESPONSE, the payee is paid", async () => {
    const before = await payee();
    const settles = stack.facilitator.calls.settle;
    const next = upstream.nextRequest();
    const response = await pay()(`${gateway.url}/paid?q=1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, url: "/paid?q=1" });
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: "eip155:31337" });
    expect(response.headers.get("cache-control")).toBe("private");
    expect(stack.facilitator.calls.settle).toBe(settles + 1);
    expect(await payee()).toBe(before + PRICE);
    // The upstream saw the request, never the payment.
    expect((await next).headers["payment-signature"]).toBeUndefined();
    // The access log line names the route, payer, amount and settlement transaction.
    const entry = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === "request" && line.outcome === "paid");
    expect(entry).toMatchObject({
      route: "GET /paid",
      status: 200,
      payer: stack.accounts.payer.address,
      amount: PRICE.toString(),
      transaction: receipt.transaction,
    });
  });

  it.each([
    ["/500", 500, undefined],
    ["/hang", 504, "upstream_timeout"],
    ["/reset", 502, "upstream_unavailable"],
  ])("does not settle when the upstream fails (%s → %i)", async (path, status, code) => {
    const before = await payee();
    const settles = stack.facilitator.calls.settle;
    const verifies = stack.facilitator.calls.verify;
    const response = await pay()(`${gateway.url}${path}`);
    expect(response.status).toBe(status);
    if (code) expect(await response.json()).toMatchObject({ error: code });
    expect(response.headers.get("payment-response")).toBeNull();
    expect(stack.facilitator.calls.verify).toBe(verifies + 1);
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await payee()).toBe(before);
  });

  it("refuses a body over maxBodyBytes with 413 before any payment is verified", async () => {
    const verifies = stack.facilitator.calls.verify;
    const response = await pay()(`${gateway.url}/paid`, { method: "POST", body: "x".repeat(1001) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "payload_too_large" });
    expect(stack.facilitator.calls.verify).toBe(verifies);
  });

  it("finishes a held response and its settlement when shut down mid-request, then stops", async () => {
    const before = await payee();
    const settles = stack.facilitator.calls.settle;
    const arrived = upstream.nextRequest();
    const pending = pay()(`${gateway.url}/release`);
    await arrived;
    const closed = gateway.close();
    upstream.release();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ released: true });
    expect(response.headers.get("payment-response")).toBeTruthy();
    await closed;
    expect(stack.facilitator.calls.settle).toBe(settles + 1);
    expect(await payee()).toBe(before + PRICE);
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
  });
});
