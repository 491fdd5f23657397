import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { x402, x402Node, type X402Options } from "../../src/index.js";
import type { RouteRequestContext } from "../../src/pricing/routeFunctions.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";

// Money on a real chain: anvil, TestUSDC, the local facilitator and the official @x402/fetch client. A price
// computed per request is paid exactly, once; a price that moved between offer and retry is paid never.
let stack: LocalStack;
const servers: LoopbackServer[] = [];
let served = 0;
let moving = 0;

beforeAll(async () => {
  stack = await startLocalStack();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await stack?.stop();
});

function options(): X402Options {
  return {
    facilitator: { url: stack.facilitatorUrl },
    network: "eip155:31337",
    assets: [
      { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    routes: {
      "GET /report": {
        // A price of the request: "$0.05" for ?size=large, else "$0.01" (50 000 / 10 000 TestUSDC units).
        price: (context: RouteRequestContext) =>
          context.adapter.getQueryParam("size") === "large" ? "$0.05" : "$0.01",
        payTo: async () => stack.accounts.payee.address,
      },
      // A price that moves on every call: the retry is priced higher than the offer it pays.
      "GET /moving": { price: () => `$0.0${(moving += 1)}`, payTo: stack.accounts.payee.address },
    },
  };
}

const pay = () =>
  createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
  }).fetch;

const balances = async () => ({
  payer: await stack.balanceOf(stack.accounts.payer.address),
  payee: await stack.balanceOf(stack.accounts.payee.address),
});

const answer = (_req: IncomingMessage, res: ServerResponse) => {
  served += 1;
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify({ report: "done" }));
};

const ADAPTERS = {
  express: () => {
    const app = express();
    app.use(x402(options()));
    app.use(answer);
    return app;
  },
  "node:http": () => {
    const paywall = x402Node(options() as never);
    return (req: IncomingMessage, res: ServerResponse) => void paywall(req, res, () => answer(req, res));
  },
};

describe.each(Object.keys(ADAPTERS) as Array<keyof typeof ADAPTERS>)("a price function under %s", (name) => {
  let base: string;
  beforeAll(async () => {
    const server = await listenOnLoopback(ADAPTERS[name]());
    servers.push(server);
    base = server.url;
  });

  it("the payer pays exactly the price computed for its request, once, and the payee receives it", async () => {
    const before = await balances();
    const settles = stack.facilitator.calls.settle;
    const servedBefore = served;
    const res = await pay()(`${base}/report?size=large`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: "done" });
    const after = await balances();
    expect(after.payer).toBe(before.payer - 50_000n);
    expect(after.payee).toBe(before.payee + 50_000n);
    expect(stack.facilitator.calls.settle).toBe(settles + 1);
    expect(served).toBe(servedBefore + 1);
  });

  it("a price that moved between the offer and the paid retry: refused, nothing settled, nothing served", async () => {
    const before = await balances();
    const calls = { ...stack.facilitator.calls };
    const servedBefore = served;
    const res = await pay()(`${base}/moving`);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: "payment_mismatch" });
    expect(await balances()).toEqual(before);
    expect(stack.facilitator.calls.verify).toBe(calls.verify);
    expect(stack.facilitator.calls.settle).toBe(calls.settle);
    expect(served).toBe(servedBefore);
  });
});
