import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { devAccount } from "../../src/dev/devAccounts.js";
import { PAYER_ENV } from "../../src/mcp/errors.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { PRICE, startPaidApp, type PaidApp } from "../e2e/support/startPaidApp.js";
import {
  connectInProcess,
  connectStdio,
  makeTestKeystore,
  removeTestKeystores,
  type PayCall,
  type TestKeystore,
} from "./support/payMcpClient.js";

let stack: LocalStack;
let app: PaidApp;
let keystore: TestKeystore;
const fakes: Server[] = [];
/** Every tool answer and server log of this file, to check that the key never shows. */
const seen: string[] = [];

beforeAll(async () => {
  stack = await startLocalStack();
  app = await startPaidApp({ stack });
  keystore = await makeTestKeystore(stack.accounts.payer.privateKey);
});

afterAll(async () => {
  await Promise.all(fakes.map((server) => new Promise((resolve) => server.close(resolve))));
  await app?.stop();
  await stack?.stop();
  await removeTestKeystores();
});

function env(
  overrides: Record<string, string | undefined> = {},
  ks: TestKeystore = keystore,
): Record<string, string> {
  const base: Record<string, string | undefined> = {
    PAY_MCP_EVM_KEYSTORE_PATH: ks.keystorePath,
    PAY_MCP_EVM_PASSWORD_PATH: ks.passwordPath,
    PAY_MCP_EVM_NETWORKS: "eip155:31337",
    PAY_MCP_EVM_PAYEES: stack.accounts.payee.address,
    PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
    PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function balances() {
  return {
    payer: await stack.balanceOf(stack.accounts.payer.address),
    payee: await stack.balanceOf(stack.accounts.payee.address),
  };
}

/** Runs calls against one stdio server started with `environment`, recording what it said. */
async function withServer<T>(
  environment: Record<string, string>,
  run: (pay: (url: string) => Promise<PayCall>) => Promise<T>,
): Promise<T> {
  const mcp = await connectStdio(environment);
  try {
    return await run(async (url) => {
      const call = await mcp.pay(url);
      seen.push(call.text, JSON.stringify(call.structured));
      return call;
    });
  } finally {
    await mcp.close();
    seen.push(mcp.stderr());
  }
}

/** A loopback server; `signatures` collects every PAYMENT-SIGNATURE it receives. */
async function startFake(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; signatures: string[] }> {
  const signatures: string[] = [];
  const server = createServer((req, res) => {
    const signature = req.headers["payment-signature"];
    if (typeof signature === "string") signatures.push(signature);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fakes.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, signatures };
}

/** A resource that always answers 402 with `offer`, even to a paid request. */
function alwaysPaymentRequired(offer: PaymentRequired) {
  return startFake((_req, res) => {
    res.writeHead(402, {
      "content-type": "application/json",
      "payment-required": encodePaymentRequiredHeader(offer),
    });
    res.end(JSON.stringify({ ...offer, message: "pay first" }));
  });
}

/** An offer on another network (no chain behind it here): only its terms matter to the policies. */
function offerOn(network: string, asset: string, amount = "1000"): PaymentRequired {
  return {
    x402Version: 2,
    error: "payment_required",
    resource: {
      url: "http://127.0.0.1/mainnet",
      description: "a mainnet resource",
      mimeType: "application/json",
    },
    accepts: [
      {
        scheme: "exact",
        network: network as `${string}:${string}`,
        amount,
        asset,
        payTo: stack.accounts.payee.address,
        maxTimeoutSeconds: 60,
        extra: { name: "USD Coin", version: "2" },
      },
    ],
  };
}

const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const USDC_ETHEREUM = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

// Each test spawns servers with tsx: slow on a loaded machine, so generous limits (no speed asserted).
describe("x402-pay-mcp over stdio", { timeout: 120_000 }, () => {
  it("lists exactly one tool, pay_for_resource, whose input is a URL and optionally a method, a body and its type", async () => {
    const mcp = await connectStdio(env());
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["pay_for_resource"]);
      const schema = tools[0]!.inputSchema as {
        type: string;
        properties: Record<string, { type: string }>;
        required: string[];
      };
      expect(schema.type).toBe("object");
      expect(Object.keys(schema.properties)).toEqual(["url", "method", "body", "contentType"]);
      expect(schema.properties.url!.type).toBe("string");
      expect(schema.properties.body!.type).toBe("string");
      expect(schema.required).toEqual(["url"]);
      expect(tools[0]!.outputSchema?.type).toBe("object");
    } finally {
      await mcp.close();
    }
  });

  it("pays a priced route with examples/mcp/mcp-servers.local.json: paid, the price moved once, the transaction is on chain", async () => {
    const example = JSON.parse(
      readFileSync(new URL("../../examples/mcp/mcp-servers.local.json", import.meta.url), "utf8"),
    ) as { mcpServers: Record<string, { env: Record<string, string> }> };
    const exampleEnv = Object.values(example.mcpServers)[0]!.env;
    // The example names npm start's payee and TestUSDC: the local stack deploys them at fixed addresses.
    expect(exampleEnv.PAY_MCP_EVM_PAYEES).toBe(stack.accounts.payee.address);
    expect(exampleEnv.PAY_MCP_EVM_ASSETS).toBe(stack.token.address);
    const before = await balances();
    const hits = app.hits.quote!;
    const call = await withServer(
      {
        ...env(),
        ...exampleEnv,
        PAY_MCP_EVM_KEYSTORE_PATH: keystore.keystorePath,
        PAY_MCP_EVM_PASSWORD_PATH: keystore.passwordPath,
      },
      (pay) => pay(`${app.url}/quote`),
    );
    expect(call.isError).toBe(false);
    expect(call.structured).toMatchObject({
      outcome: "paid",
      paid: true,
      payer: stack.accounts.payer.address,
      payee: stack.accounts.payee.address,
      amount: PRICE.quote.toString(),
      asset: stack.token.address,
      network: "eip155:31337",
      resource: { status: 200, encoding: "text", truncated: false },
    });
    expect(call.structured.resource).toMatchObject({
      contentType: expect.stringMatching(/^application\/json/),
    });
    expect(JSON.parse((call.structured.resource as { body: string }).body)).toEqual({
      pair: "ETH/USDC",
      price: "3150.25",
    });
    expect(call.text).toContain("3150.25");
    const transaction = call.structured.transaction as `0x${string}`;
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await stack.publicClient.getTransactionReceipt({ hash: transaction })).status).toBe("success");
    expect(app.hits.quote).toBe(hits + 1);
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("opens a pbkdf2 keystore too, and pays with it", async () => {
    const pbkdf2 = await makeTestKeystore(stack.accounts.payer.privateKey, { kdf: "pbkdf2" });
    const before = await balances();
    const call = await withServer(env({}, pbkdf2), (pay) => pay(`${app.url}/quote`));
    expect(call.structured).toMatchObject({ outcome: "paid", payer: stack.accounts.payer.address });
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("returns a free resource as is: outcome free, paid false, nothing signed", async () => {
    const free = await startFake((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end("no charge");
    });
    const before = await balances();
    const call = await withServer(env(), (pay) => pay(`${free.url}/hello`));
    expect(call.structured).toEqual({
      outcome: "free",
      paid: false,
      resource: {
        status: 200,
        contentType: "text/plain; charset=utf-8",
        body: "no charge",
        encoding: "text",
        bytes: 9,
        truncated: false,
      },
    });
    expect(free.signatures).toEqual([]);
    expect(await balances()).toEqual(before);
  });

  it("refuses what the allow-lists and the per-payment cap forbid, naming the setting; no transfer", async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ PAY_MCP_EVM_NETWORKS: "eip155:84532" }, "network_not_allowed", "PAY_MCP_EVM_NETWORKS"],
      [{ PAY_MCP_EVM_PAYEES: devAccount(7).address }, "payee_not_allowed", "PAY_MCP_EVM_PAYEES"],
      [{ PAY_MCP_EVM_ASSETS: USDC_BASE }, "asset_not_allowed", "PAY_MCP_EVM_ASSETS"],
      [
        { PAY_MCP_EVM_MAX_PER_PAYMENT: (PRICE.quote - 1n).toString() },
        "over_payment_cap",
        "PAY_MCP_EVM_MAX_PER_PAYMENT",
      ],
      [
        { PAY_MCP_EVM_MAX_PER_SESSION: (PRICE.quote - 1n).toString() },
        "over_session_cap",
        "PAY_MCP_EVM_MAX_PER_SESSION",
      ],
    ];
    const before = await balances();
    const hits = app.hits.quote;
    const settles = stack.facilitator.calls.settle;
    const calls = await Promise.all(
      cases.map(([overrides]) => withServer(env(overrides), (pay) => pay(`${app.url}/quote`))),
    );
    for (const [i, [, code, setting]] of cases.entries()) {
      expect(calls[i]!.isError, code).toBe(true);
      expect(calls[i]!.structured, code).toMatchObject({ outcome: "unpayable", code, setting });
      expect(calls[i]!.text).toContain(setting);
    }
    expect(app.hits.quote).toBe(hits);
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await balances()).toEqual(before);
  });

  it("stops at the session cap across calls: two payments, then over_session_cap, one transfer each", async () => {
    const before = await balances();
    const calls = await withServer(
      env({ PAY_MCP_EVM_MAX_PER_SESSION: (PRICE.quote * 2n + 5n).toString() }),
      async (pay) => [
        await pay(`${app.url}/quote`),
        await pay(`${app.url}/quote`),
        await pay(`${app.url}/quote`),
      ],
    );
    expect(calls.map((call) => call.structured.outcome)).toEqual(["paid", "paid", "unpayable"]);
    expect(calls[2]!.structured).toMatchObject({
      code: "over_session_cap",
      setting: "PAY_MCP_EVM_MAX_PER_SESSION",
    });
    expect(new Set(calls.slice(0, 2).map((call) => call.structured.transaction)).size).toBe(2);
    expect(await balances()).toEqual({
      payer: before.payer - 2n * PRICE.quote,
      payee: before.payee + 2n * PRICE.quote,
    });
  });

  it("holds the session cap under concurrent calls: one of two pays, one transfer", async () => {
    const before = await balances();
    const calls = await withServer(
      env({ PAY_MCP_EVM_MAX_PER_SESSION: ((PRICE.quote * 3n) / 2n).toString() }),
      (pay) => Promise.all([pay(`${app.url}/quote`), pay(`${app.url}/quote`)]),
    );
    expect(calls.map((call) => call.structured.outcome).sort()).toEqual(["paid", "unpayable"]);
    expect(calls.find((call) => call.isError)!.structured).toMatchObject({ code: "over_session_cap" });
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("needs consent naming a mainnet, and an asset list on Ethereum mainnet; nothing signed without them", async () => {
    const base = await alwaysPaymentRequired(offerOn("eip155:8453", USDC_BASE));
    const ethereum = await alwaysPaymentRequired(offerOn("eip155:1", USDC_ETHEREUM));
    const mainnets = { PAY_MCP_EVM_NETWORKS: "eip155:8453,eip155:1" };
    const refused = await withServer(
      env({ ...mainnets, PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND: "eip155:1" }),
      async (pay) => [await pay(base.url), await pay(ethereum.url)],
    );
    expect(refused[0]!.structured).toMatchObject({
      outcome: "unpayable",
      code: "mainnet_consent_required",
      setting: "PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND",
    });
    expect(refused[1]!.structured).toMatchObject({
      outcome: "unpayable",
      code: "asset_required",
      setting: "PAY_MCP_EVM_ASSETS",
    });
    expect(base.signatures).toEqual([]);
    expect(ethereum.signatures).toEqual([]);

    // With consent for Base (and an asset list for Ethereum), the payer signs: these fakes then refuse.
    const consented = await withServer(
      env({
        ...mainnets,
        PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND: " eip155:8453 , eip155:1 ",
        PAY_MCP_EVM_ASSETS: `${USDC_BASE},${USDC_ETHEREUM}`,
      }),
      async (pay) => [await pay(base.url), await pay(ethereum.url)],
    );
    expect(consented.map((call) => call.structured.code)).toEqual(["payment_rejected", "payment_rejected"]);
    expect(base.signatures).toHaveLength(1);
    expect(ethereum.signatures).toHaveLength(1);
  });

  it("answers failed when the server answers 402 again after the payment; no transfer", async () => {
    const offer = await fetch(`${app.url}/quote`);
    const header = offer.headers.get("payment-required")!;
    const stubborn = await startFake((_req, res) => {
      res.writeHead(402, { "content-type": "application/json", "payment-required": header });
      res.end(JSON.stringify({ error: "payment_required", message: "still not paid" }));
    });
    const before = await balances();
    const call = await withServer(env(), (pay) => pay(`${stubborn.url}/quote`));
    expect(call.isError).toBe(true);
    expect(call.structured).toMatchObject({ outcome: "failed", code: "payment_rejected" });
    expect(call.structured.message).toContain("still not paid");
    expect(stubborn.signatures).toHaveLength(1);
    expect(await balances()).toEqual(before);
  });

  it("answers failed when the facilitator refuses the payment (a payer without funds); no transfer", async () => {
    const broke = devAccount(5);
    const brokeKeystore = await makeTestKeystore(broke.privateKey);
    const before = await stack.balanceOf(stack.accounts.payee.address);
    const settles = stack.facilitator.calls.settle;
    const call = await withServer(env({}, brokeKeystore), (pay) => pay(`${app.url}/quote`));
    expect(call.structured).toMatchObject({ outcome: "failed", code: "payment_rejected" });
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before);
  });

  it("answers failed server_error when the paid upstream fails (nothing settled) and network_error for a dead port", async () => {
    const before = await balances();
    const dead = await startFake(() => {});
    const deadUrl = dead.url;
    await new Promise((resolve) => fakes.pop()!.close(resolve));
    const calls = await withServer(env(), async (pay) => [
      await pay(`${app.url}/broken`),
      await pay(`${deadUrl}/x`),
    ]);
    expect(calls[0]!.structured).toMatchObject({ outcome: "failed", code: "server_error" });
    expect(calls[0]!.structured.message).toContain("500");
    expect(calls[1]!.structured).toMatchObject({ outcome: "failed", code: "network_error" });
    expect(await balances()).toEqual(before);
  });

  it("refuses a bad keystore setup with its code, and never signs", async () => {
    const loose = await makeTestKeystore(stack.accounts.payer.privateKey);
    await chmod(loose.keystorePath, 0o644);
    const loosePassword = await makeTestKeystore(stack.accounts.payer.privateKey);
    await chmod(loosePassword.passwordPath, 0o640);
    const wrong = await makeTestKeystore(stack.accounts.payer.privateKey, {
      passwordFileText: "not the password\n",
    });
    const garbled = await makeTestKeystore(stack.accounts.payer.privateKey);
    await writeFile(garbled.keystorePath, "{ not json", { mode: 0o600 });
    const cases: [TestKeystore | Record<string, string>, string, string][] = [
      [loose, "keystore_permissions", "PAY_MCP_EVM_KEYSTORE_PATH"],
      [loosePassword, "password_permissions", "PAY_MCP_EVM_PASSWORD_PATH"],
      [wrong, "wrong_password", "PAY_MCP_EVM_PASSWORD_PATH"],
      [garbled, "keystore_invalid", "PAY_MCP_EVM_KEYSTORE_PATH"],
      [
        { PAY_MCP_EVM_KEYSTORE_PATH: join(keystore.dir, "missing.json") },
        "keystore_unreadable",
        "PAY_MCP_EVM_KEYSTORE_PATH",
      ],
      [
        { PAY_MCP_EVM_PASSWORD_PATH: join(keystore.dir, "missing.pass") },
        "password_unreadable",
        "PAY_MCP_EVM_PASSWORD_PATH",
      ],
    ];
    const before = await balances();
    const hits = app.hits.quote;
    const calls = await Promise.all(
      cases.map(([setup]) =>
        withServer("keystorePath" in setup ? env({}, setup as TestKeystore) : env(setup), (pay) =>
          pay(`${app.url}/quote`),
        ),
      ),
    );
    for (const [i, [, code, setting]] of cases.entries()) {
      expect(calls[i]!.structured, code).toMatchObject({ outcome: "unpayable", code, setting });
    }
    expect(app.hits.quote).toBe(hits);
    expect(await balances()).toEqual(before);
  });

  it("answers unpayable naming the variable when the environment is invalid", async () => {
    const call = await withServer(env({ PAY_MCP_EVM_MAX_PER_PAYMENT: "1e6" }), (pay) =>
      pay(`${app.url}/quote`),
    );
    expect(call.structured).toMatchObject({
      outcome: "unpayable",
      code: "invalid_setting",
      setting: "PAY_MCP_EVM_MAX_PER_PAYMENT",
    });
  });

  it("never shows the private key or the password in its answers or its logs", () => {
    const key = stack.accounts.payer.privateKey.toLowerCase();
    const everything = seen.join("\n").toLowerCase();
    expect(seen.length).toBeGreaterThan(20);
    expect(everything).not.toContain(key.slice(2));
    expect(everything).not.toContain(keystore.password.toLowerCase());
  });
});

describe("x402-pay-mcp in process (options the bin does not expose)", () => {
  it("answers failed timeout when the server does not answer in time", async () => {
    const hanging = await startFake(() => {});
    const mcp = await connectInProcess({ env: env(), timeoutMs: 300 });
    try {
      const call = await mcp.pay(`${hanging.url}/slow`);
      expect(call.structured).toMatchObject({ outcome: "failed", code: "timeout" });
    } finally {
      await mcp.close();
    }
  });

  it("answers failed timeout when the body stops halfway", async () => {
    const stalling = await startFake((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the beginning");
    });
    const mcp = await connectInProcess({ env: env(), timeoutMs: 500 });
    try {
      const call = await mcp.pay(`${stalling.url}/stall`);
      expect(call.structured).toMatchObject({ outcome: "failed", code: "timeout" });
    } finally {
      await mcp.close();
    }
  });

  it("accepts only http and https URLs", async () => {
    const mcp = await connectInProcess({ env: env() });
    try {
      for (const url of ["file:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)", "not a url", ""]) {
        const call = await mcp.pay(url);
        expect(call.isError, url).toBe(true);
        expect(call.text, url).toMatch(/validation/i);
      }
    } finally {
      await mcp.close();
    }
  });

  it.each([
    ["PAY_MCP_EVM_KEYSTORE_PATH", "relative/payer.json"],
    ["PAY_MCP_EVM_PASSWORD_PATH", "~/payer.pass"],
    ["PAY_MCP_EVM_NETWORKS", "base-sepolia"],
    ["PAY_MCP_EVM_PAYEES", "0x1234"],
    ["PAY_MCP_EVM_MAX_PER_PAYMENT", "-1"],
    ["PAY_MCP_EVM_MAX_PER_SESSION", "5,000,000"],
    ["PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND", "yes"],
    ["PAY_MCP_EVM_ASSETS", "USDC"],
  ])("answers unpayable invalid_setting naming %s when it is %j", async (name, value) => {
    const mcp = await connectInProcess({ env: env({ [name]: value }) });
    try {
      const call = await mcp.pay(`${app.url}/quote`);
      expect(call.structured).toMatchObject({ outcome: "unpayable", code: "invalid_setting", setting: name });
      expect(call.structured.message).toContain(name);
    } finally {
      await mcp.close();
    }
  });

  it("answers unpayable naming each required variable that is missing", async () => {
    const optional: string[] = [
      PAYER_ENV.mainnetConsent,
      PAYER_ENV.assets,
      PAYER_ENV.allowPermit2,
      PAYER_ENV.maxAuthorizationSeconds,
      PAYER_ENV.maxBodyBytes,
      PAYER_ENV.allowInsecureHttp,
      // The Solana wallet: needed only when PAY_MCP_EVM_NETWORKS names a solana: network.
      PAYER_ENV.svmKeypairPath,
      PAYER_ENV.svmRpcUrl,
    ];
    for (const name of Object.values(PAYER_ENV).filter((name) => !optional.includes(name))) {
      const mcp = await connectInProcess({ env: env({ [name]: undefined }) });
      try {
        const call = await mcp.pay(`${app.url}/quote`);
        expect(call.structured, name).toMatchObject({
          outcome: "unpayable",
          code: "invalid_setting",
          setting: name,
        });
      } finally {
        await mcp.close();
      }
    }
  });

  it("caps the returned body and sends binary bodies as base64", async () => {
    const big = await startFake((req, res) => {
      if (req.url === "/bin") {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(Buffer.from([0, 1, 2, 255]));
      } else {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(5000));
      }
    });
    const mcp = await connectInProcess({ env: env({ PAY_MCP_EVM_MAX_BODY_BYTES: "1000" }) });
    try {
      const text = await mcp.pay(`${big.url}/text`);
      expect(text.structured.resource).toMatchObject({
        bytes: 1000,
        truncated: true,
        encoding: "text",
        body: "x".repeat(1000),
      });
      const binary = await mcp.pay(`${big.url}/bin`);
      expect(binary.structured.resource).toMatchObject({
        encoding: "base64",
        body: "AAEC/w==",
        bytes: 4,
        truncated: false,
      });
    } finally {
      await mcp.close();
    }
  });
});
