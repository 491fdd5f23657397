import { HTTPFacilitatorClient } from "@x402/core/server";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { PRICE, startPaidApp, type PaidApp } from "./support/startPaidApp.js";

let stack: LocalStack;
let app: PaidApp;
let down: PaidApp;
const authCalls: string[] = [];

beforeAll(async () => {
  stack = await startLocalStack();
  // As CDP's users pass it: the official client with its auth-header hook.
  const client = new HTTPFacilitatorClient({
    url: stack.facilitatorUrl,
    createAuthHeaders: async () => {
      authCalls.push("asked");
      return { verify: { authorization: "Bearer t" }, settle: { authorization: "Bearer t" }, supported: {} };
    },
  });
  app = await startPaidApp({ stack, facilitator: client });
  down = await startPaidApp({ stack, facilitator: new HTTPFacilitatorClient({ url: "http://127.0.0.1:9" }) });
});

afterAll(async () => {
  await app?.stop();
  await down?.stop();
  await stack?.stop();
});

const paying = () =>
  createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
  }).fetch;

describe("x402() with the official @x402/core HTTPFacilitatorClient as its facilitator", () => {
  it("pays through it: 200, the settlement on chain, the amount moved once, its auth hook used", async () => {
    const payer = stack.accounts.payer.address;
    const payee = stack.accounts.payee.address;
    const before = [await stack.balanceOf(payer), await stack.balanceOf(payee)];
    const res = await paying()(`${app.url}/quote`);
    expect(res.status).toBe(200);
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response") ?? "");
    expect(settled.success).toBe(true);
    const receipt = await stack.publicClient.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    });
    expect(receipt.status).toBe("success");
    expect([await stack.balanceOf(payer), await stack.balanceOf(payee)]).toEqual([
      before[0]! - PRICE.quote,
      before[1]! + PRICE.quote,
    ]);
    expect(app.hits.quote).toBe(1);
    expect(authCalls.length).toBeGreaterThan(0);
  });

  it("a facilitator the client cannot reach is 503 facilitator_unavailable: nothing served, nothing moved", async () => {
    const payer = stack.accounts.payer.address;
    const before = await stack.balanceOf(payer);
    const res = await paying()(`${down.url}/quote`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe("facilitator_unavailable");
    expect(res.headers.get("retry-after")).not.toBeNull();
    expect(down.hits.quote).toBe(0);
    expect(await stack.balanceOf(payer)).toBe(before);
  });
});
