import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402, type X402Middleware } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO } from "../support/payments.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";

// A public anvil dev key: it only signs here.
const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let server: LoopbackServer;
let paywall: X402Middleware;
let baseUrl: string;

beforeAll(async () => {
  rpc = await startStarknetRpcServer({
    call: ({ calldata }) => [calldata[0] === payer.address.toLowerCase() ? "0x1" : "0x0"],
  });
  facilitator = await startFacilitatorDouble();
  paywall = x402({
    facilitator: { url: facilitator.url },
    payTo: PAY_TO,
    network: "eip155:84532",
    allowedHosts: ["127.0.0.1"],
    // Only settings: x402() builds the gate (SIWX + cached est_ouverte) itself.
    recognition: { rpcUrl: rpc.url, contract: "0x0456abc" },
    routes: {
      "GET /report": { price: "$0.001" },
      "GET /always-paid": { price: "$0.001", recognition: false },
    },
  });
  const app = express();
  app.use(paywall);
  app.get("/report", (_req, res) => res.json({ report: "ok" }));
  app.get("/always-paid", (_req, res) => res.json({ paid: true }));
  server = await listenOnLoopback(app);
  baseUrl = server.url;
});

afterAll(async () => {
  await server.close();
  await paywall.close();
  await facilitator.close();
  await rpc.close();
});

describe("recognition configured by settings alone", () => {
  it("offers sign-in on routes that take it, and not where it is off", async () => {
    const offer = decodePaymentRequiredHeader(
      (await fetch(`${baseUrl}/report`)).headers.get("payment-required") ?? "",
    );
    expect(offer.extensions?.["sign-in-with-x"]).toMatchObject({
      info: { domain: new URL(baseUrl).host, uri: `${baseUrl}/report`, version: "1" },
      supportedChains: [{ chainId: "eip155:84532", type: "eip191" }],
    });
    const none = decodePaymentRequiredHeader(
      (await fetch(`${baseUrl}/always-paid`)).headers.get("payment-required") ?? "",
    );
    expect(none.extensions?.["sign-in-with-x"]).toBeUndefined();
  });

  it("lets a recognized payer in with the official client's sign-in, with no facilitator call", async () => {
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(payer));
    const before = facilitator.calls.filter((call) => call.endpoint !== "supported").length;
    const res = await wrapFetchWithPayment(fetch, http)(`${baseUrl}/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: "ok" });
    expect(facilitator.calls.filter((call) => call.endpoint !== "supported").length).toBe(before);
    expect(rpc.validationFailures).toEqual([]);
  });
});
