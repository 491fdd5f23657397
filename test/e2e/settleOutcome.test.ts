import { decodePaymentResponseHeader } from "@x402/fetch";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { x402, type X402Options } from "../../src/index.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { startDelayingFacilitator, type DelayingFacilitator } from "../support/delayingFacilitator.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { createGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream } from "../gateway/support/startUpstream.js";
import { officialClient, signOfficialPayment } from "./support/officialPayment.js";

const PRICE = 10_000n;
let stack: LocalStack;
let slow: DelayingFacilitator;
const apps: LoopbackServer[] = [];

beforeAll(async () => {
  stack = await startLocalStack();
  slow = await startDelayingFacilitator(stack.facilitatorUrl);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await slow?.close();
  await stack?.stop();
});

/** An app whose facilitator gives up on `/settle` after 300 ms, with or without an RPC to ask the chain. */
async function startApp(withRpc: boolean) {
  const hits = { quote: 0 };
  const logs = lineLog();
  const options: X402Options = {
    facilitator: { url: slow.url, timeoutMs: 10_000, settleTimeoutMs: 300 },
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    settlementCheckTimeoutMs: 5_000,
    logger: logs.logger,
    ...(withRpc ? { rpcUrls: { "eip155:31337": stack.rpcUrl } } : {}),
    routes: {
      "GET /quote": {
        price: {
          amount: PRICE.toString(),
          asset: stack.token.address,
          extra: { name: stack.token.name, version: stack.token.version },
        },
      },
    },
  };
  const app = express();
  app.use(x402(options));
  app.get("/quote", (_req, res) => {
    hits.quote++;
    res.json({ price: "3150.25" });
  });
  const server = await listenOnLoopback(app);
  apps.push(server);
  return { url: `${server.url}/quote`, hits, logs };
}

/** A logger recording messages, and a way to wait for one. */
function lineLog() {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; wake: () => void }> = [];
  const write = (_fields: unknown, message?: string) => {
    lines.push(message ?? "");
    for (const waiter of waiters.splice(0)) {
      if (waiter.pattern.test(message ?? "")) waiter.wake();
      else waiters.push(waiter);
    }
  };
  return {
    lines,
    logger: { info: write, warn: write, error: write, debug: write },
    waitFor: (pattern: RegExp) =>
      lines.some((line) => pattern.test(line))
        ? Promise.resolve()
        : new Promise<void>((wake) => waiters.push({ pattern, wake })),
  };
}

async function balances() {
  return {
    payer: await stack.balanceOf(stack.accounts.payer.address),
    payee: await stack.balanceOf(stack.accounts.payee.address),
  };
}

async function sign(url: string) {
  return (
    await signOfficialPayment(officialClient(stack.accounts.payer.privateKey, stack.token.address), url)
  ).header;
}

/** Send a paid request and hang up while the facilitator verifies it. */
async function hangUpDuringVerify(url: string, header: string): Promise<void> {
  const abort = new AbortController();
  const verifying = slow.nextVerify();
  const first = fetch(url, { headers: { "PAYMENT-SIGNATURE": header }, signal: abort.signal }).catch(
    (error: Error) => error.name,
  );
  await verifying;
  abort.abort();
  expect(await first).toBe("AbortError");
}

const paid = (url: string, header: string) => fetch(url, { headers: { "PAYMENT-SIGNATURE": header } });

/** 503 settlement_unknown, retry in 5 s. */
async function expectSettlementUnknown(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(await response.json()).toMatchObject({ error: "settlement_unknown" });
}

/** Pay once: 200 with the response, a receipt naming a transaction that succeeded on chain, the price moved once. */
async function expectServedOnceAndSettled(
  url: string,
  header: string,
  hits: { quote: number },
  before: Awaited<ReturnType<typeof balances>>,
): Promise<void> {
  const response = await paid(url, header);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ price: "3150.25" });
  const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
  expect(receipt).toMatchObject({ success: true, network: "eip155:31337" });
  const onChain = await stack.publicClient.getTransactionReceipt({
    hash: receipt.transaction as `0x${string}`,
  });
  expect(onChain.status).toBe("success");
  const after = await balances();
  expect(before.payer - after.payer).toBe(PRICE);
  expect(after.payee - before.payee).toBe(PRICE);
  expect(hits.quote).toBe(1);
}

describe("a /settle that times out but lands on chain (issue 15, item 6)", () => {
  it("with an RPC: the chain says it settled, so the response is served with a receipt naming the transaction", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 3_000;
    const { url, hits } = await startApp(true);
    const header = await sign(url);
    const before = await balances();
    await expectServedOnceAndSettled(url, header, hits, before);
    // The same payment cannot pay again.
    expect((await paid(url, header)).status).toBe(402);
  });

  it("without an RPC, settle never sent: 503 settlement_unknown, nothing moved; the retry settles once and gets the kept response", async () => {
    slow.settleMode = "drop";
    const { url, hits } = await startApp(false);
    const header = await sign(url);
    const before = await balances();
    await expectSettlementUnknown(await paid(url, header));
    expect(await balances()).toEqual(before);

    slow.settleMode = "forward";
    slow.settleDelayMs = 0;
    const retry = await paid(url, header);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ price: "3150.25" });
    expect(decodePaymentResponseHeader(retry.headers.get("payment-response")!).success).toBe(true);
    const after = await balances();
    expect(before.payer - after.payer).toBe(PRICE);
    expect(after.payee - before.payee).toBe(PRICE);
    expect(hits.quote).toBe(1);
  });

  it("without an RPC, settle landed late: 503 settlement_unknown (not a refusal); a retry is never charged again", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 3_000;
    const { url } = await startApp(false);
    const header = await sign(url);
    const before = await balances();
    const settledBefore = slow.settled;
    const first = await paid(url, header);
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ error: "settlement_unknown" });
    // The first /settle must have landed before the retry, or the retry's own settle may win the race.
    await vi.waitFor(() => expect(slow.settled).toBeGreaterThan(settledBefore), { timeout: 15_000 });
    slow.settleDelayMs = 0;
    const retry = await paid(url, header);
    expect(retry.status).toBe(503);
    expect(await retry.json()).toMatchObject({ error: "settlement_unknown" });
    const after = await balances();
    // Charged once (the first /settle landed), never twice.
    expect(before.payer - after.payer).toBe(PRICE);
  });
});

describe("a /settle answered settlement_pending with a transaction (x402 V2): an unknown outcome, not a failure", () => {
  /** The real facilitator settles; its answer is rewritten to say the named transaction is still pending. */
  const answerPending = (path: string, reply: Buffer): Buffer => {
    if (path !== "/settle") return reply;
    const real = JSON.parse(reply.toString()) as { transaction: string; network: string };
    return Buffer.from(
      JSON.stringify({
        success: false,
        errorReason: "settlement_pending",
        transaction: real.transaction,
        network: real.network,
      }),
    );
  };

  it("with an RPC: the chain says it settled, so the response is served once, with a receipt naming that transaction", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 0;
    slow.rewrite = answerPending;
    try {
      const { url, hits } = await startApp(true);
      const header = await sign(url);
      const before = await balances();
      await expectServedOnceAndSettled(url, header, hits, before);
    } finally {
      slow.rewrite = undefined;
    }
  });

  it("without an RPC: 503 settlement_unknown with Retry-After (the payment stays reserved), never 402 settlement_failed; a retry is not charged again", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 0;
    slow.rewrite = answerPending;
    try {
      const { url } = await startApp(false);
      const header = await sign(url);
      const before = await balances();
      await expectSettlementUnknown(await paid(url, header));
      const retry = await paid(url, header);
      expect([200, 503]).toContain(retry.status);
      const after = await balances();
      // Charged once (the pending transaction landed), never twice.
      expect(before.payer - after.payer).toBe(PRICE);
    } finally {
      slow.rewrite = undefined;
    }
  });
});

describe("a client that hangs up while its payment is verified (issue 15, item 7)", () => {
  it("x402(): the handler does not run, nothing is settled, and the retry with the same payment is served at once", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 0;
    slow.verifyDelayMs = 500;
    const { url, hits, logs } = await startApp(true);
    const header = await sign(url);
    const before = await balances();
    const settledBefore = slow.settled;
    await hangUpDuringVerify(url, header);
    await logs.waitFor(/client went away during verification/);
    expect(hits.quote).toBe(0);
    expect(slow.settled).toBe(settledBefore);
    expect(await balances()).toEqual(before);

    slow.verifyDelayMs = 0;
    const retry = await paid(url, header);
    expect(retry.status).toBe(200);
    expect(hits.quote).toBe(1);
    const after = await balances();
    expect(before.payer - after.payer).toBe(PRICE);
    expect(after.payee - before.payee).toBe(PRICE);
  });

  it("gateway: the upstream is not called, nothing is settled, and the retry is not stuck behind 409 payment_in_progress", async () => {
    slow.verifyDelayMs = 500;
    const upstream = await startUpstream();
    const lines: string[] = [];
    const config = gatewayConfig({
      upstreamUrl: upstream.url,
      facilitatorUrl: slow.url,
      payTo: stack.accounts.payee.address,
      network: "eip155:31337",
      rpcUrls: { "eip155:31337": stack.rpcUrl },
      routes: {
        "GET /quote": {
          price: {
            amount: PRICE.toString(),
            asset: stack.token.address,
            extra: { name: stack.token.name, version: stack.token.version },
          },
        },
      },
      logging: { level: "info" },
    });
    const logger = createGatewayLogger("info", { write: (line: string) => void lines.push(line) });
    const gateway = await createGateway(config, { logger }).listen();
    try {
      const url = `${gateway.url}/quote`;
      const header = await sign(url);
      const before = await balances();
      const seenBefore = upstream.seen.length;
      await hangUpDuringVerify(url, header);
      while (!lines.some((line) => line.includes("client went away during verification")))
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(upstream.seen.length).toBe(seenBefore);
      expect(await balances()).toEqual(before);

      slow.verifyDelayMs = 0;
      const retry = await paid(url, header);
      expect(retry.status).toBe(200);
      expect(upstream.seen.length).toBe(seenBefore + 1);
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE);
    } finally {
      await gateway.close();
      await upstream.stop();
    }
  });
});
