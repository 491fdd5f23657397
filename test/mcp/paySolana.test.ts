import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/loadConfig.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import type { RunningSolanaEngine } from "../../src/dev/startSolanaEngine.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { decodeBase58 } from "../../src/protocol/base58.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import {
  connectInProcess,
  makeTestKeystore,
  removeTestKeystores,
  type PayMcpClient,
} from "./support/payMcpClient.js";

// The MCP payer paying Solana-only routes (x402() and the gateway) from a keypair file, on the LOCAL
// Solana engine with the official facilitator; balances read from the engine.
const PRICE = 10_000n; // $0.01 in test USDC (6 decimals)

let stack: LocalStack;
let solana: RunningSolanaEngine;
let dir: string;
let keypairPath: string;
let app: { url: string; server: Server };
let upstream: TestUpstream;
let gateway: RunningGateway;
const hits = { sol: 0, dear: 0, either: 0 };

async function listen(
  listener: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The payer's settings: the engine's payer, devnet (the engine), the engine's payee; caps in USDC units. */
function payerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PAY_MCP_SVM_KEYPAIR_PATH: keypairPath,
    PAY_MCP_SVM_RPC_URL: solana.rpcUrl,
    PAY_MCP_EVM_NETWORKS: solana.network,
    PAY_MCP_EVM_PAYEES: solana.accounts.payee.address,
    PAY_MCP_EVM_ASSETS: solana.mint,
    PAY_MCP_EVM_MAX_PER_PAYMENT: "20000",
    PAY_MCP_EVM_MAX_PER_SESSION: "25000",
    ...overrides,
  };
}

beforeAll(async () => {
  [stack, upstream] = await Promise.all([startLocalStack({ solana: true }), startUpstream()]);
  solana = stack.solana!;
  dir = await mkdtemp(join(tmpdir(), "x402-pay-mcp-solana-"));
  keypairPath = join(dir, "payer.json");
  await writeFile(keypairPath, JSON.stringify([...solana.accounts.payer.keypairBytes]), { mode: 0o600 });
  await chmod(keypairPath, 0o600);
  const express = PAYWALL_ADAPTERS.find((adapter) => adapter.name === "express")!;
  app = await listen(
    express.app(
      {
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
          // Solana alone: USDC on the network's mint, the fee payer from /supported.
          "GET /sol": { network: solana.network, payTo: solana.accounts.payee.address, price: "$0.01" },
          "GET /dear": { network: solana.network, payTo: solana.accounts.payee.address, price: "$1" },
          // EVM first, then Solana, in one offer.
          "GET /either": {
            price: "$0.01",
            accepts: [{ network: solana.network, payTo: solana.accounts.payee.address, price: "$0.01" }],
          },
        },
      },
      {
        "GET /sol": (_req, res) => {
          hits.sol++;
          sendJson(res, 200, { paid: "sol" });
        },
        "GET /dear": (_req, res) => {
          hits.dear++;
          sendJson(res, 200, { paid: "dear" });
        },
        "GET /either": (_req, res) => {
          hits.either++;
          sendJson(res, 200, { paid: "either" });
        },
      },
    ),
  );
  const yaml = [
    "listen: { host: 127.0.0.1, port: 0 }",
    `facilitator: { url: "${stack.facilitatorUrl}" }`,
    `network: "${solana.network}"`,
    `payTo: "${solana.accounts.payee.address}"`,
    `upstreams: [{ url: "${upstream.url}" }]`,
    "logging: { level: silent }",
    "routes:",
    '  "GET /sol": { price: "$0.01" }',
  ].join("\n");
  gateway = await createGateway(parseConfig(yaml, { file: "gateway.yaml", env: {} }), {
    logger: createGatewayLogger("silent"),
  }).listen();
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await new Promise<void>((resolve) => (app ? app.server.close(() => resolve()) : resolve()));
  await Promise.all([upstream?.stop(), stack?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
  await removeTestKeystores();
});

const balances = async () => ({
  payer: await solana.tokenBalance(solana.accounts.payer.address),
  payee: await solana.tokenBalance(solana.accounts.payee.address),
});

describe("pay_for_resource on Solana, from a keypair file", { timeout: 120_000 }, () => {
  let mcp: PayMcpClient;
  beforeAll(async () => {
    mcp = await connectInProcess({ env: payerEnv() });
  });
  afterAll(() => mcp?.close());

  it("pays a Solana-only x402() route with the official @x402/svm client: one settlement, the handler runs once", async () => {
    const before = await balances();
    const call = await mcp.pay(`${app.url}/sol`);
    expect(call.isError, call.text).toBe(false);
    expect(call.structured).toMatchObject({
      outcome: "paid",
      signed: true,
      payer: solana.accounts.payer.address,
      payee: solana.accounts.payee.address,
      amount: PRICE.toString(),
      asset: solana.mint,
      network: solana.network,
      resource: { status: 200, body: JSON.stringify({ paid: "sol" }) },
    });
    // The receipt's transaction is a Solana signature (base58 of 64 bytes), settled on the engine.
    expect(decodeBase58(call.structured.transaction as string)?.length).toBe(64);
    expect(call.structured.nonce).toBeUndefined();
    expect(hits.sol).toBe(1);
    expect(await balances()).toEqual({ payer: before.payer - PRICE, payee: before.payee + PRICE });
  });

  it("a price above PAY_MCP_EVM_MAX_PER_PAYMENT is refused before signing: nothing moves, the handler does not run", async () => {
    const before = await balances();
    const call = await mcp.pay(`${app.url}/dear`);
    expect(call.structured).toMatchObject({
      outcome: "unpayable",
      code: "over_payment_cap",
      setting: "PAY_MCP_EVM_MAX_PER_PAYMENT",
    });
    expect(call.structured.signed).toBeUndefined();
    expect(hits.dear).toBe(0);
    expect(await balances()).toEqual(before);
  });

  it("pays the gateway's Solana-only route; then the session cap refuses a third payment and nothing moves", async () => {
    const before = await balances();
    const seen = upstream.seen.length;
    const paid = await mcp.pay(`${gateway.url}/sol`);
    expect(paid.structured).toMatchObject({
      outcome: "paid",
      amount: PRICE.toString(),
      network: solana.network,
    });
    expect(upstream.seen.length).toBe(seen + 1);
    const afterPaid = await balances();
    expect(afterPaid).toEqual({ payer: before.payer - PRICE, payee: before.payee + PRICE });
    // 20 000 spent this session; another 10 000 would pass 25 000.
    const refused = await mcp.pay(`${gateway.url}/sol`);
    expect(refused.structured).toMatchObject({
      outcome: "unpayable",
      code: "over_session_cap",
      setting: "PAY_MCP_EVM_MAX_PER_SESSION",
    });
    expect(upstream.seen.length).toBe(seen + 1);
    expect(await balances()).toEqual(afterPaid);
  });
});

describe("the Solana caps and lists, each refusing before anything is signed", { timeout: 120_000 }, () => {
  it.each<[string, Record<string, string>, string]>([
    [
      "another payee",
      { PAY_MCP_EVM_PAYEES: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM" },
      "payee_not_allowed",
    ],
    [
      "another mint (wrapped SOL)",
      { PAY_MCP_EVM_ASSETS: "So11111111111111111111111111111111111111112" },
      "asset_not_allowed",
    ],
    [
      "a lifetime cap below the offer's",
      { PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS: "1" },
      "authorization_too_long",
    ],
    ["a session cap below the price", { PAY_MCP_EVM_MAX_PER_SESSION: "9999" }, "over_session_cap"],
  ])("%s: %s", async (_name, overrides, code) => {
    const mcp = await connectInProcess({ env: payerEnv(overrides) });
    try {
      const before = await balances();
      const sol = hits.sol;
      const call = await mcp.pay(`${app.url}/sol`);
      expect(call.structured).toMatchObject({ outcome: "unpayable", code });
      expect(hits.sol).toBe(sol);
      expect(await balances()).toEqual(before);
    } finally {
      await mcp.close();
    }
  });
});

describe("both wallets, one offer with an EVM and a Solana option", { timeout: 120_000 }, () => {
  it("pays the first option the settings allow: Solana when the EVM payee is not listed; the EVM balances stay", async () => {
    const keystore = await makeTestKeystore(stack.accounts.payer.privateKey);
    const mcp = await connectInProcess({
      env: payerEnv({
        PAY_MCP_EVM_KEYSTORE_PATH: keystore.keystorePath,
        PAY_MCP_EVM_PASSWORD_PATH: keystore.passwordPath,
        PAY_MCP_EVM_NETWORKS: `eip155:31337,${solana.network}`,
        PAY_MCP_EVM_ASSETS: `${stack.token.address},${solana.mint}`,
      }),
    });
    try {
      const before = {
        solana: await balances(),
        evmPayee: await stack.balanceOf(stack.accounts.payee.address),
      };
      const call = await mcp.pay(`${app.url}/either`);
      expect(call.structured).toMatchObject({
        outcome: "paid",
        network: solana.network,
        payer: solana.accounts.payer.address,
        amount: PRICE.toString(),
      });
      expect(hits.either).toBe(1);
      expect(await balances()).toEqual({
        payer: before.solana.payer - PRICE,
        payee: before.solana.payee + PRICE,
      });
      expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before.evmPayee);
    } finally {
      await mcp.close();
    }
  });
});
