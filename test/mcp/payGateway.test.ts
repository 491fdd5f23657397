import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { startStakingBackend, type RunningBackend } from "../staking/support/startStakingBackend.js";
import { ONE_STRK } from "../staking/support/stakingFixtures.js";
import {
  connectInProcess,
  makeTestKeystore,
  removeTestKeystores,
  type PayMcpClient,
  type TestKeystore,
} from "./support/payMcpClient.js";

// The MCP payer against the real gateway on loopback: npm start's config in front of the staking
// backend (its six priced POST operations), and a gateway whose only offer is exact-pq.
const OPERATION_PRICE = 10_000n; // $0.01 in TestUSDC (6 decimals)
const PQ_PRICE = 2_500n;
const ALICE = "0xa11ce";

let stack: LocalStack;
let backend: RunningBackend;
let staking: RunningGateway;
let upstream: TestUpstream;
let pqGateway: RunningGateway;
let keystore: TestKeystore;
let mcp: PayMcpClient;

beforeAll(async () => {
  [stack, backend, upstream] = await Promise.all([
    startLocalStack(),
    startStakingBackend({ config: { trustProxy: ["loopback"] } }),
    startUpstream(),
  ]);
  const config = await loadConfig("config/gateway.yaml", {
    env: {
      X402_GATEWAY_PORT: "0",
      STAKING_BACKEND_URL: backend.url,
      X402_FACILITATOR_URL: stack.facilitatorUrl,
      X402_RPC_URL: stack.rpcUrl,
      X402_ASSET: stack.token.address,
      X402_PAY_TO: stack.accounts.payee.address,
      LOG_LEVEL: "silent",
    },
  });
  staking = await createGateway(config).listen();
  pqGateway = await createGateway(
    gatewayConfig({
      upstreamUrl: upstream.url,
      facilitatorUrl: stack.facilitatorUrl,
      payTo: stack.accounts.payee.address,
      network: "eip155:31337",
      assets: [
        { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
      ],
      routes: {
        "GET /pq": {
          accepts: [
            { scheme: "exact-pq", price: { amount: PQ_PRICE.toString(), asset: stack.token.address } },
          ],
        },
      },
    }),
  ).listen();
  keystore = await makeTestKeystore(stack.accounts.payer.privateKey);
  mcp = await connectInProcess({
    env: {
      PAY_MCP_EVM_KEYSTORE_PATH: keystore.keystorePath,
      PAY_MCP_EVM_PASSWORD_PATH: keystore.passwordPath,
      PAY_MCP_EVM_NETWORKS: "eip155:31337",
      PAY_MCP_EVM_PAYEES: stack.accounts.payee.address,
      PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
      PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
    },
  });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await staking?.close();
  await pqGateway?.close();
  await Promise.all([upstream?.stop(), backend?.close(), stack?.stop()]);
  await removeTestKeystores();
});

const payee = () => stack.balanceOf(stack.accounts.payee.address);
const payer = () => stack.balanceOf(stack.accounts.payer.address);
const json = { method: "POST", contentType: "application/json" };

describe("pay_for_resource against the real gateway", { timeout: 120_000 }, () => {
  it("pays each of the six POST operations npm start prices, with its body: one settlement each, the backend runs each", async () => {
    const before = { payee: await payee(), payer: await payer() };
    const operations: Array<[string, Record<string, string>, number]> = [
      ["/api/stake", { userAddress: ALICE, amount: (100n * ONE_STRK).toString() }, 0],
      ["/api/add-to-pool", { userAddress: ALICE, amount: "1000" }, 0],
      ["/api/restake", { userAddress: ALICE }, 4 * 60],
      ["/api/claim", { userAddress: ALICE }, 4 * 60],
      ["/api/unstake/intent", { userAddress: ALICE, amount: "1000" }, 0],
      ["/api/unstake/action", { userAddress: ALICE }, 300],
    ];
    for (const [path, body, wait] of operations) {
      backend.clock.advanceSeconds(wait);
      const call = await mcp.pay(`${staking.url}${path}`, { ...json, body: JSON.stringify(body) });
      expect(call.isError, `${path}: ${call.text}`).toBe(false);
      expect(call.structured, path).toMatchObject({
        outcome: "paid",
        signed: true,
        amount: OPERATION_PRICE.toString(),
        payee: stack.accounts.payee.address,
      });
      const resource = call.structured.resource as { status: number; body: string };
      expect(resource.status, `${path}: ${resource.body}`).toBe(200);
      expect(JSON.parse(resource.body), path).toMatchObject({ success: true });
    }
    // The stake and add-to-pool bodies reached the backend: Alice's position holds both amounts.
    const metrics = (await (await fetch(`${backend.url}/api/metrics/${ALICE}`)).json()) as {
      data: { positions: Array<{ stakedAmount: string }> };
    };
    expect(metrics.data.positions).toHaveLength(1);
    const six = OPERATION_PRICE * 6n;
    expect(await payee()).toBe(before.payee + six);
    expect(await payer()).toBe(before.payer - six);
  });

  it("a POST without its body is sent as such, and refused before any payment (#34 item 6): nothing signed or moved", async () => {
    // settle: before, with the body checked against the backend's OpenAPI schema first: 400 before the offer.
    const before = await payee();
    const call = await mcp.pay(`${staking.url}/api/claim`, { method: "POST" });
    expect(call.structured).toMatchObject({
      outcome: "failed",
      code: "http_error",
      resource: { status: 400 },
    });
    expect(call.structured.signed).toBeUndefined();
    expect(await payee()).toBe(before);
  });

  it("pays an offer whose only option is exact-pq: paid, the price moved once", async () => {
    const before = await payee();
    const seen = upstream.seen.length;
    const call = await mcp.pay(`${pqGateway.url}/pq`);
    expect(call.isError, call.text).toBe(false);
    expect(call.structured).toMatchObject({ outcome: "paid", amount: PQ_PRICE.toString() });
    expect(upstream.seen.length).toBe(seen + 1);
    expect(await payee()).toBe(before + PQ_PRICE);
  });

  it("a 404 or a 5xx without a payment asked is failed http_error with isError, the answer attached; nothing signed", async () => {
    const before = { payee: await payee(), payer: await payer() };
    const missing = await mcp.pay(`${staking.url}/api/no-such-route`);
    expect(missing.isError).toBe(true);
    expect(missing.structured).toMatchObject({
      outcome: "failed",
      code: "http_error",
      resource: { status: 404 },
    });
    expect(missing.structured.signed).toBeUndefined();
    const broken = await mcp.pay(`${pqGateway.url}/500`);
    expect(broken.isError).toBe(true);
    expect(broken.structured).toMatchObject({
      outcome: "failed",
      code: "http_error",
      resource: { status: 500 },
    });
    expect(broken.text).toContain("answered 500");
    // A free 2xx stays free.
    const free = await mcp.pay(`${staking.url}/health`);
    expect(free.structured).toMatchObject({ outcome: "free", paid: false });
    expect(free.isError).toBe(false);
    expect({ payee: await payee(), payer: await payer() }).toEqual(before);
  });

  it("refuses a GET with a body and a content type without a body before sending anything", async () => {
    const seen = upstream.seen.length;
    const withBody = await mcp.pay(`${pqGateway.url}/pq`, { body: "{}" });
    expect(withBody.structured).toMatchObject({ outcome: "failed", code: "invalid_request" });
    const typeOnly = await mcp.pay(`${pqGateway.url}/pq`, { method: "POST", contentType: "text/plain" });
    expect(typeOnly.structured).toMatchObject({ outcome: "failed", code: "invalid_request" });
    expect(upstream.seen.length).toBe(seen);
  });
});
