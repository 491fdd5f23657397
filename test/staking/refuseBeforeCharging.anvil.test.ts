import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";
import { ONE_STRK } from "./support/stakingFixtures.js";

// Issue #34 item 6, as a new user met it: npm start's config, `POST /api/stake` with `{}` settled $0.01
// and then got the backend's 400. Now the gateway checks the body against the backend's OpenAPI
// document first: 400 invalid_request_body, and on anvil not a unit moves. A good body still pays once.
const OPERATION_PRICE = 10_000n; // $0.01 in TestUSDC (6 decimals)

let stack: LocalStack;
let backend: RunningBackend;
let gateway: RunningGateway;

const env = (stakingUrl: string): Record<string, string> => ({
  X402_GATEWAY_PORT: "0",
  X402_METRICS_PORT: "0",
  STAKING_BACKEND_URL: stakingUrl,
  X402_FACILITATOR_URL: stack.facilitatorUrl,
  X402_RPC_URL: stack.rpcUrl,
  X402_ASSET: stack.token.address,
  X402_PAY_TO: stack.accounts.payee.address,
  LOG_LEVEL: "silent",
});

beforeAll(async () => {
  [stack, backend] = await Promise.all([
    startLocalStack(),
    startStakingBackend({ config: { trustProxy: ["loopback"] } }),
  ]);
  gateway = await createGateway(await loadConfig("config/gateway.yaml", { env: env(backend.url) })).listen();
});
afterAll(async () => {
  await gateway?.close();
  await backend?.close();
  await stack?.stop();
});

const balances = async () => ({
  payer: await stack.balanceOf(stack.accounts.payer.address),
  payee: await stack.balanceOf(stack.accounts.payee.address),
});

const payingFetch = () =>
  createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
  }).fetch;

const post = (fetcher: typeof fetch, path: string, body: string) =>
  fetcher(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
  });

describe("npm start's settle-before operations refuse a bad body before charging", () => {
  it.each([
    ["/api/stake", "{}"],
    ["/api/stake", JSON.stringify({ userAddress: "0xa11ce", amount: "-1" })],
    ["/api/claim", JSON.stringify({ userAddress: "not a felt" })],
    ["/api/add-to-pool", "{"],
  ])(
    "POST %s with %s: 400 invalid_request_body from the official client, nothing moved",
    async (path, body) => {
      const before = await balances();
      const response = await post(payingFetch(), path, body);
      expect(response.status).toBe(400);
      expect(response.headers.get("payment-response")).toBeNull();
      expect(await response.json()).toMatchObject({ error: "invalid_request_body" });
      expect(await balances()).toEqual(before);
    },
  );

  it("a body that fits is paid once and staked", async () => {
    const before = await balances();
    const body = JSON.stringify({ userAddress: "0xa11ce", amount: ONE_STRK.toString() });
    const response = await post(payingFetch(), "/api/stake", body);
    expect(response.status).toBe(200);
    expect(response.headers.get("payment-response")).not.toBeNull();
    expect(await response.json()).toMatchObject({ success: true, data: { operation: "stake" } });
    const after = await balances();
    expect(after.payee - before.payee).toBe(OPERATION_PRICE);
    expect(before.payer - after.payer).toBe(OPERATION_PRICE);
  });

  it("the gateway does not start when the backend's OpenAPI document cannot be read", async () => {
    const config = await loadConfig("config/gateway.yaml", { env: env("http://127.0.0.1:9") });
    await expect(createGateway(config).listen()).rejects.toThrow(
      /cannot start: routes\["POST \/api\/[a-z/-]+"\]\.requestBody: the OpenAPI document at http:\/\/127\.0\.0\.1:9\/openapi\.json could not be fetched/,
    );
  });
});
