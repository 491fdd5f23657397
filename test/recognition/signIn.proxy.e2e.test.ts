import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

// Public anvil dev keys: they only sign here; nothing reaches a chain.
const recognizedPayer = privateKeyToAccount(
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
);
const newPayer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let upstream: Server;
const upstreamSaw: IncomingHttpHeaders[] = [];
let gateway: RunningGateway;

beforeAll(async () => {
  rpc = await startStarknetRpcServer({
    call: ({ calldata }) => [calldata[0] === recognizedPayer.address.toLowerCase() ? "0x1" : "0x0"],
  });
  facilitator = await startFacilitatorDouble();
  upstream = createServer((req, res) => {
    upstreamSaw.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ from: "upstream" }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const config = gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: { url: facilitator.url },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:84532",
    upstreams: [{ url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` }],
    recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 1_000 },
    allowedHosts: ["127.0.0.1"],
    routes: {
      "GET /report": { price: "$0.01" },
      "GET /always-paid": { price: "$0.01", recognition: false },
    },
    logging: { level: "silent" },
  });
  gateway = await createGateway(config, { logger: createGatewayLogger("silent") }).listen();
});

afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => upstream.close(resolve));
  await facilitator.close();
  expect(rpc.validationFailures).toEqual([]);
  await rpc.close();
});

beforeEach(() => {
  facilitator.calls.length = 0;
  upstreamSaw.length = 0;
});

function officialClient(account: PrivateKeyAccount) {
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(account));
  return wrapFetchWithPayment(fetch, http);
}

describe("sign-in through the standalone gateway (config `recognition`)", () => {
  it("serves a recognized payer (0x1) from the upstream without payment, and counts it", async () => {
    const res = await officialClient(recognizedPayer)(`${gateway.url}/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ from: "upstream" });
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
    expect(upstreamSaw).toHaveLength(1);
    expect(upstreamSaw[0]?.["sign-in-with-x"]).toBeUndefined();
    const metrics = await (await fetch(gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/outcome="recognized"/);
    expect(metrics).toMatch(/x402_gateway_recognition_lookups_total\{outcome="miss"\} [1-9]/);
    expect(metrics).toMatch(
      /x402_gateway_recognition_rpc_duration_seconds_count\{outcome="recognized",error=""\} 1/,
    );
  });

  it("makes a payer the chain does not know yet (0x0) pay through the normal flow", async () => {
    const res = await officialClient(newPayer)(`${gateway.url}/report`);
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([1, 1]);
  });

  it("refuses a replayed proof with 401 sign_in_rejected, and offers no sign-in where it is off", async () => {
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const header = request.headers.get("sign-in-with-x");
      if (header) sent.push(header);
      return fetch(request);
    };
    const client = registerExactEvmScheme(new x402Client(), { signer: recognizedPayer });
    const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(recognizedPayer));
    expect((await wrapFetchWithPayment(recording, http)(`${gateway.url}/report`)).status).toBe(200);
    const replay = await fetch(`${gateway.url}/report`, { headers: { "sign-in-with-x": sent[0]! } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({
      error: "sign_in_rejected",
      details: { reason: "nonce_unknown_or_used" },
    });
    const on = await fetch(`${gateway.url}/report`);
    expect(
      ((await on.json()) as { extensions?: Record<string, unknown> }).extensions?.["sign-in-with-x"],
    ).toBeDefined();
    const off = await fetch(`${gateway.url}/always-paid`);
    expect(off.status).toBe(402);
    expect(
      ((await off.json()) as { extensions?: Record<string, unknown> }).extensions?.["sign-in-with-x"],
    ).toBe(undefined);
  });
});
