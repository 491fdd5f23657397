import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { officialClient, signOfficialPayment } from "./support/officialPayment.js";
import { startPaidApp, type PaidApp } from "./support/startPaidApp.js";

let stack: LocalStack;
let app: PaidApp;

beforeAll(async () => {
  stack = await startLocalStack();
  app = await startPaidApp({ stack });
});

afterAll(async () => {
  await app?.stop();
  await stack?.stop();
});

describe("end to end: the facilitator is down", () => {
  it("answers 503 facilitator_unavailable with Retry-After; upstream not reached, nothing transferred", async () => {
    const client = officialClient(stack.accounts.payer.privateKey, stack.token.address);
    const { header } = await signOfficialPayment(client, `${app.url}/quote`);
    const before = await stack.balanceOf(stack.accounts.payer.address);
    await stack.facilitator.stop();

    const response = await fetch(`${app.url}/quote`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await response.json()) as { error: string }).error).toBe("facilitator_unavailable");

    const paying = createPayingFetch({
      privateKey: stack.accounts.payer.privateKey,
      allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
    });
    const viaClient = await paying.fetch(`${app.url}/order`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(viaClient.status).toBe(503);

    expect(app.hits.quote).toBe(0);
    expect(app.hits.order).toBe(0);
    expect(await stack.balanceOf(stack.accounts.payer.address)).toBe(before);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(0n);
  });
});
