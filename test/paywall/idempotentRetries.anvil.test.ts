import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
} from "@x402/extensions/payment-identifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { MemoryPaymentLedger } from "../../src/ledger/MemoryPaymentLedger.js";
import { RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";
import { x402Node, type X402Options } from "../../src/index.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";

// Issue #34 item 4: a client that lost the paid response retries with the same payment-identifier and
// the same payment, at another instance sharing the Redis ledger: it gets the same response again,
// charged once on anvil, never payment_already_used; another payment under that identifier is refused.
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PRICE = 10_000n; // $0.01 in TestUSDC

let stack: LocalStack;
const servers: LoopbackServer[] = [];
const ledgers: RedisPaymentLedger[] = [];
let served = 0;

beforeAll(async () => {
  stack = await startLocalStack();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(ledgers.map((ledger) => ledger.close()));
  await stack?.stop();
});

const options = (ledger: X402Options["ledger"]): X402Options => ({
  facilitator: { url: stack.facilitatorUrl },
  payTo: stack.accounts.payee.address,
  network: "eip155:31337",
  assets: [
    { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
  ],
  ledger,
  routes: {
    "GET /report": {
      price: "$0.01",
      extensions: { "payment-identifier": declarePaymentIdentifierExtension() },
    },
  },
});

const answer = (_req: IncomingMessage, res: ServerResponse) => {
  served += 1;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("X-Report-Serial", String(served));
  res.end(JSON.stringify({ report: "done", serial: served, at: randomUUID() }));
};

const instance = async (ledger: X402Options["ledger"]) => {
  const server = await listenOnLoopback(x402Node(options(ledger) as never).wrap(answer));
  servers.push(server);
  return server.url;
};

const balances = async () => ({
  payer: await stack.balanceOf(stack.accounts.payer.address),
  payee: await stack.balanceOf(stack.accounts.payee.address),
});

/** The official client paying with `id` as its payment identifier; the PAYMENT-SIGNATURE it sent is recorded. */
function officialClient(id: string) {
  const sent: string[] = [];
  const paying = createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
    fetch: async (input, init) => {
      const signature = new Headers(
        init?.headers ?? (input instanceof Request ? input.headers : undefined),
      ).get("payment-signature");
      if (signature !== null) sent.push(signature);
      return fetch(input, init);
    },
  });
  paying.client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (id === "") delete paymentRequired.extensions?.["payment-identifier"];
    else appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), id);
  });
  return { fetch: paying.fetch, sent };
}

describe("payment-identifier retries across two instances on Redis", () => {
  let first: string;
  let second: string;
  beforeAll(async () => {
    const keyPrefix = `x402:test:idem:${randomUUID()}:`;
    const [a, b] = [
      new RedisPaymentLedger({ url: REDIS_URL, keyPrefix }),
      new RedisPaymentLedger({ url: REDIS_URL, keyPrefix }),
    ];
    ledgers.push(a, b);
    [first, second] = await Promise.all([instance(a), instance(b)]);
  });

  it("the offer declares the extension", async () => {
    const offer = await fetch(`${first}/report`);
    expect(offer.status).toBe(402);
    const required = JSON.parse(
      Buffer.from(offer.headers.get("payment-required") ?? "", "base64").toString(),
    );
    expect(required.extensions["payment-identifier"]).toMatchObject({ info: { required: false } });
  });

  it("a lost response is served again to the same payment at another instance, charged once", async () => {
    const id = `pay_${randomUUID().replace(/-/g, "")}`;
    const client = officialClient(id);
    const before = await balances();
    const servedBefore = served;
    const paid = await client.fetch(`${first}/report`);
    expect(paid.status).toBe(200);
    const body = await paid.text();
    expect(client.sent).toHaveLength(1);
    const payment = client.sent[0] as string;
    expect(
      JSON.parse(Buffer.from(payment, "base64").toString()).extensions["payment-identifier"].info.id,
    ).toBe(id);

    for (const base of [second, first]) {
      const retry = await fetch(`${base}/report`, { headers: { "PAYMENT-SIGNATURE": payment } });
      expect(retry.status).toBe(200);
      expect(await retry.text()).toBe(body);
      expect(retry.headers.get("x-report-serial")).toBe(paid.headers.get("x-report-serial"));
      expect(retry.headers.get("payment-response")).toBe(paid.headers.get("payment-response"));
    }
    expect(served).toBe(servedBefore + 1);
    const after = await balances();
    expect(after.payee - before.payee).toBe(PRICE);
    expect(before.payer - after.payer).toBe(PRICE);
  });

  it("another payment under a used identifier is refused 409, nothing charged", async () => {
    const id = `pay_${randomUUID().replace(/-/g, "")}`;
    expect((await officialClient(id).fetch(`${first}/report`)).status).toBe(200);
    const before = await balances();
    const again = officialClient(id);
    const refused = await again.fetch(`${second}/report`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "payment_identifier_conflict" });
    expect(await balances()).toEqual(before);
  });

  it("without an identifier, a replayed payment is still payment_already_used", async () => {
    // The client declines the extension: its payment carries no identifier.
    const client = officialClient("");
    const sentWithout = client.sent;
    expect((await client.fetch(`${first}/report`)).status).toBe(200);
    const replay = await fetch(`${second}/report`, {
      headers: { "PAYMENT-SIGNATURE": sentWithout[0] as string },
    });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toMatchObject({ error: "payment_already_used" });
  });
});

describe("the memory ledger's kept responses are bounded", () => {
  it("keeps within its byte cap, dropping the least recently used, and for the window only", async () => {
    let now = 1_000_000;
    const ledger = new MemoryPaymentLedger({ keptResponsesMaxBytes: 10_000, now: () => now });
    const kept = (n: number) => ({
      payment: `p${n}`,
      status: 200,
      headers: {},
      body: new Uint8Array(3_000),
      receipt: { success: true },
    });
    for (const n of [1, 2, 3, 4]) await ledger.keepResponse(`id-${n}`, kept(n), 60_000);
    expect(await ledger.keptResponse("id-1")).toBeUndefined();
    expect((await ledger.keptResponse("id-4"))?.payment).toBe("p4");
    await ledger.keepResponse("id-4", kept(9), 60_000);
    expect((await ledger.keptResponse("id-4"))?.payment).toBe("p4");
    await ledger.keepResponse("huge", { ...kept(5), body: new Uint8Array(20_000) }, 60_000);
    expect(await ledger.keptResponse("huge")).toBeUndefined();
    now += 60_001;
    expect(await ledger.keptResponse("id-4")).toBeUndefined();
  });
});
