import { request as httpRequest } from "node:http";
import express from "express";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402 } from "../../src/adapters/express.js";
import type { PaywallOutcome } from "../../src/paywall/flow/PaywallObserver.js";
import { createSignInGate } from "../../src/recognition/createSignInGate.js";
import type { SiwxSignInGate } from "../../src/recognition/SiwxSignInGate.js";
import { encodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO } from "../support/payments.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { siwxSignIn } from "../support/siwxSignIn.js";

// Public anvil dev keys: they only sign here; nothing reaches a chain.
const recognizedPayer = privateKeyToAccount(
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
);
const newPayer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");
const CONTRACT = "0x0456abc";

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let server: LoopbackServer;
let baseUrl: string;
let gate: SiwxSignInGate;
const clock = { now: Date.now() };
const outcomes: PaywallOutcome[] = [];

beforeAll(async () => {
  rpc = await startStarknetRpcServer({
    call: ({ calldata }) => [calldata[0] === recognizedPayer.address.toLowerCase() ? "0x1" : "0x0"],
  });
  facilitator = await startFacilitatorDouble();
  const recognition = { rpcUrl: rpc.url, contract: CONTRACT, timeoutMs: 1_000 };
  gate = createSignInGate(recognition, { now: () => clock.now });
  const app = express();
  app.use(
    x402({
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      allowedHosts: ["127.0.0.1"],
      routes: {
        "GET /api/report": { price: "$0.001", description: "A report", recognition },
        "GET /api/always-paid": { price: "$0.001", recognition: false },
      },
      signInGate: gate,
      now: () => clock.now,
      observer: { outcome: (_route, outcome) => outcomes.push(outcome) },
    }),
  );
  app.get("/api/report", (_req, res) => res.json({ report: "ok" }));
  app.get("/api/always-paid", (_req, res) => res.json({ paid: true }));
  server = await listenOnLoopback(app);
  baseUrl = server.url;
});

afterAll(async () => {
  await server.close();
  await facilitator.close();
  expect(rpc.validationFailures).toEqual([]);
  await rpc.close();
});

beforeEach(() => {
  facilitator.calls.length = 0;
  outcomes.length = 0;
  clock.now = Date.now();
});

/** The official client: @x402/fetch paying with EVM exact, signing in with the SIWX hook first. */
function officialClient(account: PrivateKeyAccount) {
  const sent: Array<{ signIn: string | null; payment: string | null }> = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({
      signIn: request.headers.get("sign-in-with-x"),
      payment: request.headers.get("payment-signature"),
    });
    return fetch(request);
  };
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(account));
  return { fetch: wrapFetchWithPayment(recording, http), sent };
}

/** A SIGN-IN-WITH-X header for a fresh challenge of `path`, made with the official helpers. */
async function signIn(account: PrivateKeyAccount, path = "/api/report"): Promise<string> {
  const offer = await fetch(`${baseUrl}${path}`);
  expect(offer.status).toBe(402);
  return (await siwxSignIn(offer.headers.get("payment-required") ?? "", account, `${baseUrl}${path}`)).header;
}

/** GET with exactly these headers (Host included), so the test controls what the gateway sees. */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

function decode(header: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Record<string, unknown>;
}

describe("sign-in with the official client", () => {
  it("lets a recognized payer (0x1) in without payment and without the facilitator", async () => {
    const { fetch: pay, sent } = officialClient(recognizedPayer);
    const res = await pay(`${baseUrl}/api/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: "ok" });
    expect(res.headers.get("payment-response")).toBeNull();
    expect(sent.map((request) => [request.signIn !== null, request.payment !== null])).toEqual([
      [false, false],
      [true, false],
    ]);
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
    expect(outcomes).toEqual(["offered", "recognized"]);
    expect(rpc.calls().at(-1)?.calldata).toEqual([recognizedPayer.address.toLowerCase()]);
  });

  it("sends a payer the chain does not know yet (0x0) the offer, and the normal paid flow works", async () => {
    const { fetch: pay, sent } = officialClient(newPayer);
    const res = await pay(`${baseUrl}/api/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: "ok" });
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect(sent.map((request) => [request.signIn !== null, request.payment !== null])).toEqual([
      [false, false],
      [true, false],
      [false, true],
    ]);
    expect(facilitator.count("verify")).toBe(1);
    expect(facilitator.count("settle")).toBe(1);
    expect(outcomes).toEqual(["offered", "offered", "paid"]);
  });

  it("offers no sign-in on a route with recognition: false, and ignores the header there", async () => {
    const res = await fetch(`${baseUrl}/api/always-paid`);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    expect(required.extensions?.["sign-in-with-x"]).toBeUndefined();
    expect(required.extensions?.["starknet-recognition"]).toBeUndefined();
    const header = await signIn(recognizedPayer);
    expect((await rawGet("/api/always-paid", { "sign-in-with-x": header })).status).toBe(402);
  });
});

describe("the offer names where to check (starknet-recognition extension)", () => {
  it("carries the endpoint, contract, entry point, selector and block id, and a client can run the check itself", async () => {
    const res = await fetch(`${baseUrl}/api/report`);
    const required = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const extension = required.extensions?.["starknet-recognition"] as {
      info: Record<string, unknown>;
      schema: Record<string, unknown>;
    };
    const announced = extension.info;
    // §5.1.2: every extension value is `{ info, schema }`, and `info` conforms to `schema`.
    expect(Object.keys(extension).sort()).toEqual(["info", "schema"]);
    const conforms = new Ajv2020({ strict: true }).compile(extension.schema);
    expect(conforms(announced), JSON.stringify(conforms.errors)).toBe(true);
    expect(conforms({ ...announced, recognizedResult: "0x0" })).toBe(false);
    expect(conforms({ ...announced, contractAddress: "0x0456abc" })).toBe(false);
    expect(announced).toEqual({
      rpcUrl: `${rpc.url}/rpc/v0_10`,
      method: "starknet_call",
      contractAddress: "0x456abc",
      entryPoint: "est_ouverte",
      entryPointSelector: "0x3600a7e6d7c7be91e03409ac690f0f4547fdb0f5147af3fcd4cc9ef9bbfbf35",
      calldata: ["payer"],
      blockId: "latest",
      recognizedResult: "0x1",
    });
    // What any client can do with it: the seed's positional call, answered by the node.
    const answer = await fetch(String(announced.rpcUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: announced.method,
        params: [
          {
            contract_address: announced.contractAddress,
            entry_point_selector: announced.entryPointSelector,
            calldata: [recognizedPayer.address.toLowerCase()],
          },
          announced.blockId,
        ],
      }),
    });
    expect(await answer.json()).toEqual({ jsonrpc: "2.0", id: 7, result: [announced.recognizedResult] });
  });

  it("names announceRpcUrl instead of the private rpcUrl when one is set", async () => {
    const announcing = createSignInGate({
      rpcUrl: rpc.url,
      announceRpcUrl: "https://starknet.example/public/",
      contract: CONTRACT,
    });
    const extensions = await announcing.offer({
      resourceUrl: `${baseUrl}/api/report`,
      host: new URL(baseUrl).host,
      networks: ["eip155:84532"],
      now: new Date(clock.now),
    });
    expect((extensions["starknet-recognition"] as { info: unknown }).info).toMatchObject({
      rpcUrl: "https://starknet.example/public/rpc/v0_10",
      contractAddress: "0x456abc",
    });
  });
});

describe("bad sign-ins are refused with the reason", () => {
  it("rejects a replayed proof (401 sign_in_rejected)", async () => {
    const header = await signIn(recognizedPayer);
    expect((await rawGet("/api/report", { "sign-in-with-x": header })).status).toBe(200);
    const replay = await rawGet("/api/report", { "sign-in-with-x": header });
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({
      error: "sign_in_rejected",
      details: { reason: "nonce_unknown_or_used" },
    });
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
  });

  it("rejects a proof signed for another domain", async () => {
    const header = await signIn(recognizedPayer);
    const port = new URL(baseUrl).port;
    const res = await rawGet("/api/report", { "sign-in-with-x": header, host: `gateway.example:${port}` });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: "sign_in_rejected", details: { reason: "domain_mismatch" } });
  });

  it("rejects an expired proof", async () => {
    const header = await signIn(recognizedPayer);
    clock.now += 6 * 60_000;
    const res = await rawGet("/api/report", { "sign-in-with-x": header });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: "sign_in_rejected", details: { reason: "expired" } });
  });

  it("rejects a signature made by another address", async () => {
    const header = await signIn(newPayer);
    const claimed = encodeBase64Json({ ...decode(header), address: recognizedPayer.address });
    const res = await rawGet("/api/report", { "sign-in-with-x": claimed });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: "sign_in_rejected", details: { reason: "bad_signature" } });
  });

  it("answers 400 invalid_sign_in to a header that is not base64 JSON of the right shape", async () => {
    const garbage = await rawGet("/api/report", { "sign-in-with-x": "%%%" });
    expect([garbage.status, garbage.body.error]).toEqual([400, "invalid_sign_in"]);
    const shape = await rawGet("/api/report", { "sign-in-with-x": encodeBase64Json({ address: 1 }) });
    expect([shape.status, shape.body.error]).toEqual([400, "invalid_sign_in"]);
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
  });
});

describe("fail closed", () => {
  it("sends the offer when the chain cannot be asked, and the sign-in stats say why", async () => {
    const before = gate.stats().recognition.errors;
    clock.now += 60_000; // past any cached 0x0 of this payer from the tests above
    rpc.setMode("http500");
    try {
      const header = await signIn(newPayer);
      const res = await rawGet("/api/report", { "sign-in-with-x": header });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ x402Version: 2 });
      expect(gate.stats().recognition.errors).toBe(before + 1);
    } finally {
      rpc.setMode("normal");
    }
  });
});
