import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { x402Client } from "@x402/core/client";
import { x402HTTPClient } from "@x402/core/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { X402Options } from "../../src/index.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import type { RunningSolanaEngine } from "../../src/dev/startSolanaEngine.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { officialSolanaClient, signOfficialPayment } from "./support/officialPayment.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";

let stack: LocalStack;
let solana: RunningSolanaEngine;

beforeAll(async () => {
  stack = await startLocalStack({ solana: true });
  solana = stack.solana!;
}, 120_000);
afterAll(() => stack?.stop());

/** The official client paying `exact` on Solana from the engine's payer, reading the chain at the engine. */
const solanaClient = (): x402Client => officialSolanaClient(solana);

function paywallOptions(): X402Options {
  return {
    facilitator: { url: stack.facilitatorUrl, timeoutMs: 20_000 },
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    assets: [
      {
        network: "eip155:31337",
        address: stack.token.address,
        decimals: stack.token.decimals,
        name: stack.token.name,
        version: stack.token.version,
      },
    ],
    routes: {
      // Solana alone: USDC on the network's mint by default, the fee payer from /supported.
      "GET /sol": { network: solana.network, payTo: solana.accounts.payee.address, price: "$0.01" },
      // EVM and Solana options in one offer.
      "GET /either": {
        price: "$0.02",
        accepts: [{ network: solana.network, payTo: solana.accounts.payee.address, price: "$0.02" }],
      },
    },
  };
}

async function listen(
  listener: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const payeeBalance = () => solana.tokenBalance(solana.accounts.payee.address);
const payerBalance = () => solana.tokenBalance(solana.accounts.payer.address);

describe.each(PAYWALL_ADAPTERS)(
  "Solana exact through $name, the official @x402/svm client paying",
  (adapter) => {
    let url: string;
    let server: Server;
    const hits = { sol: 0, either: 0 };

    beforeAll(async () => {
      ({ url, server } = await listen(
        adapter.app(paywallOptions(), {
          "GET /sol": (_req, res) => {
            hits.sol++;
            sendJson(res, 200, { paid: "sol" });
          },
          "GET /either": (_req, res) => {
            hits.either++;
            sendJson(res, 200, { paid: "either" });
          },
        }),
      ));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("offers USDC on the network's mint with the facilitator's fee payer, in the official route shape", async () => {
      const response = await fetch(`${url}/sol`);
      expect(response.status).toBe(402);
      const offer = new x402HTTPClient(solanaClient()).getPaymentRequiredResponse(
        (name) => response.headers.get(name),
        await response.json(),
      );
      expect(offer.accepts).toEqual([
        {
          scheme: "exact",
          network: solana.network,
          amount: "10000",
          asset: solana.mint,
          payTo: solana.accounts.payee.address,
          maxTimeoutSeconds: expect.any(Number),
          extra: { feePayer: solana.accounts.feePayer.address },
        },
      ]);
    });

    it("a paid request is answered once, settled on the chain; the balances move by the price", async () => {
      const before = { payer: await payerBalance(), payee: await payeeBalance(), hits: hits.sol };
      const paying = wrapFetchWithPayment(fetch, solanaClient());
      const response = await paying(`${url}/sol`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ paid: "sol" });
      const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
      expect(receipt).toMatchObject({
        success: true,
        network: solana.network,
        payer: solana.accounts.payer.address,
      });
      expect(solana.chain.transaction(receipt.transaction)?.err).toBeNull();
      expect(await payeeBalance()).toBe(before.payee + 10_000n);
      expect(await payerBalance()).toBe(before.payer - 10_000n);
      expect(hits.sol).toBe(before.hits + 1);
    });

    it("a browser asking for the Solana-only route gets the 402 page, its offer (with the fee payer) intact", async () => {
      const served = hits.sol;
      const page = await fetch(`${url}/sol`, { headers: { accept: "text/html" } });
      expect(page.status).toBe(402);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const offer = new x402HTTPClient(solanaClient()).getPaymentRequiredResponse(
        (name) => page.headers.get(name),
        undefined,
      );
      expect(offer.accepts[0]?.extra).toEqual({ feePayer: solana.accounts.feePayer.address });
      expect(hits.sol).toBe(served);
    });

    it("an offer with EVM and Solana options: the Solana payer picks Solana and pays it", async () => {
      const response = await fetch(`${url}/either`);
      expect(response.status).toBe(402);
      const body = (await response.json()) as { accepts?: unknown[] };
      const offer = new x402HTTPClient(solanaClient()).getPaymentRequiredResponse(
        (name) => response.headers.get(name),
        body,
      );
      expect(offer.accepts.map((option) => option.network)).toEqual(["eip155:31337", solana.network]);
      const before = await payeeBalance();
      const paid = await wrapFetchWithPayment(fetch, solanaClient())(`${url}/either`);
      expect(paid.status).toBe(200);
      expect(await payeeBalance()).toBe(before + 20_000n);
    });
  },
);

describe("Solana exact through the gateway, configured in YAML", () => {
  let gateway: RunningGateway;
  let upstream: TestUpstream;

  beforeAll(async () => {
    upstream = await startUpstream();
    const yaml = [
      "listen: { host: 127.0.0.1, port: 0 }",
      `facilitator: { url: "${stack.facilitatorUrl}" }`,
      `network: "${solana.network}"`,
      `payTo: "${solana.accounts.payee.address}"`,
      `upstreams: [{ url: "${upstream.url}" }]`,
      "logging: { level: silent }",
      "routes:",
      '  "GET /sol": { price: "$0.03" }',
      '  "GET /either":',
      '    price: "$0.01"',
      "    accepts:",
      `      - { network: "eip155:31337", payTo: "${stack.accounts.payee.address}", price: { amount: "10000", asset: "${stack.token.address}", extra: { name: "${stack.token.name}", version: "${stack.token.version}" } } }`,
    ].join("\n");
    const config = parseConfig(yaml, { file: "gateway.yaml", env: {} });
    gateway = await createGateway(config, { logger: createGatewayLogger("silent") }).listen();
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.stop();
  });

  it("a solana: network starts, offers USDC with the fee payer, and a paid request reaches the upstream once", async () => {
    const offer = await fetch(`${gateway.url}/sol`);
    expect(offer.status).toBe(402);
    const before = await payeeBalance();
    const seen = upstream.seen.length;
    const response = await wrapFetchWithPayment(fetch, solanaClient())(`${gateway.url}/sol`);
    expect(response.status).toBe(200);
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(solana.chain.transaction(receipt.transaction)?.err).toBeNull();
    expect(await payeeBalance()).toBe(before + 30_000n);
    expect(upstream.seen.length).toBe(seen + 1);
  });

  it("Solana first and EVM in one offer: the official EVM client pays the EVM option", async () => {
    const evmBefore = await stack.balanceOf(stack.accounts.payee.address);
    const solBefore = await payeeBalance();
    const evmPaying = createPayingFetch({
      privateKey: stack.accounts.payer.privateKey,
      allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
    }).fetch;
    const response = await evmPaying(`${gateway.url}/either`);
    expect(response.status).toBe(200);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(evmBefore + 10_000n);
    expect(await payeeBalance()).toBe(solBefore);
  });
});

describe("one Solana payment buys one response across two instances sharing a Redis ledger", () => {
  const servers: Server[] = [];
  const urls: string[] = [];
  let served = 0;

  beforeAll(async () => {
    const keyPrefix = `x402:test:solana:${Date.now()}:`;
    for (let instance = 0; instance < 2; instance++) {
      const options = {
        ...paywallOptions(),
        ledger: { type: "redis" as const, url: process.env.REDIS_URL!, keyPrefix },
      };
      const app = PAYWALL_ADAPTERS[0]!.app(options, {
        "GET /sol": (_req, res) => {
          served++;
          sendJson(res, 200, { paid: "sol" });
        },
      });
      const { url, server } = await listen(app);
      servers.push(server);
      urls.push(url);
    }
  });
  afterAll(() =>
    Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))),
  );

  it("the same payment at the other instance, and other bytes of the same message, move nothing more", async () => {
    const client = officialSolanaClient(solana);
    const { header } = await signOfficialPayment(client, `${urls[0]}/sol`);
    const before = await payeeBalance();
    const first = await fetch(`${urls[0]}/sol`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status).toBe(200);
    const replay = await fetch(`${urls[1]}/sol`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error?: string }).error).toBe("payment_already_used");
    // The payer's signature bytes changed: another header, the same message, the same payment.
    const payment = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    const wire = Buffer.from(payment.payload.transaction, "base64");
    wire[1 + 64 + 5] = (wire[1 + 64 + 5] ?? 0) ^ 0x01;
    payment.payload.transaction = wire.toString("base64");
    const forged = Buffer.from(JSON.stringify(payment)).toString("base64");
    const again = await fetch(`${urls[1]}/sol`, { headers: { "PAYMENT-SIGNATURE": forged } });
    expect(again.status).toBe(402);
    expect(((await again.json()) as { error?: string }).error).toBe("payment_already_used");
    expect(await payeeBalance()).toBe(before + 10_000n);
    expect(served).toBe(1);
  });

  it("sent to both instances at once: one is served and paid, the other refused", async () => {
    const { header } = await signOfficialPayment(officialSolanaClient(solana), `${urls[0]}/sol`);
    const before = { payee: await payeeBalance(), served };
    const answers = await Promise.all(
      urls.map((url) => fetch(`${url}/sol`, { headers: { "PAYMENT-SIGNATURE": header } })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses[0]).toBe(200);
    expect([402, 409]).toContain(statuses[1]);
    expect(await payeeBalance()).toBe(before.payee + 10_000n);
    expect(served).toBe(before.served + 1);
  });
});
