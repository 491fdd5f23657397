import { decodePaymentResponseHeader } from "@x402/fetch";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402, type X402Options } from "../../src/index.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { startDelayingFacilitator, type DelayingFacilitator } from "../support/delayingFacilitator.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
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
  const options: X402Options = {
    facilitator: { url: slow.url, timeoutMs: 10_000, settleTimeoutMs: 300 },
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    settlementCheckTimeoutMs: 5_000,
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
  return { url: `${server.url}/quote`, hits };
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

const paid = (url: string, header: string) => fetch(url, { headers: { "PAYMENT-SIGNATURE": header } });

describe("a /settle that times out but lands on chain (issue 15, item 6)", () => {
  it("with an RPC: the chain says it settled, so the response is served with a receipt naming the transaction", async () => {
    slow.settleMode = "forward";
    slow.settleDelayMs = 3_000;
    const { url, hits } = await startApp(true);
    const header = await sign(url);
    const before = await balances();
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
    // The same payment cannot pay again.
    expect((await paid(url, header)).status).toBe(402);
  });

  it("without an RPC, settle never sent: 503 settlement_unknown, nothing moved; the retry settles once and gets the kept response", async () => {
    slow.settleMode = "drop";
    const { url, hits } = await startApp(false);
    const header = await sign(url);
    const before = await balances();
    const first = await paid(url, header);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("5");
    expect(await first.json()).toMatchObject({ error: "settlement_unknown" });
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
    const first = await paid(url, header);
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ error: "settlement_unknown" });
    slow.settleDelayMs = 0;
    const retry = await paid(url, header);
    expect(retry.status).toBe(503);
    expect(await retry.json()).toMatchObject({ error: "settlement_unknown" });
    const after = await balances();
    // Charged once (the first /settle landed), never twice.
    expect(before.payer - after.payer).toBe(PRICE);
  });
});
