import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { decodePaymentRequest } from "../../src/protocol/cbor/PaymentRequest.js";
import { rawRequest } from "../support/rawRequest.js";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";

// npm start's shape: config/gateway.yaml in front of the staking backend (which trusts the gateway's
// X-Forwarded-* on loopback, as npm start runs it). The seed's rules that span both.
const PUBLIC_URL = "https://pay.example.test";
let backend: RunningBackend;
let gateway: RunningGateway;

/** A GET with exactly these headers (Host is set by Node unless given). */
const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });
const json = (body: Buffer) => JSON.parse(body.toString("utf8")) as Record<string, unknown>;

beforeAll(async () => {
  backend = await startStakingBackend({ config: { trustProxy: ["loopback"] } });
  const config = await loadConfig("config/gateway.yaml", {
    env: {
      X402_GATEWAY_PORT: "0",
      X402_PUBLIC_URL: PUBLIC_URL,
      STAKING_BACKEND_URL: backend.url,
      LOG_LEVEL: "silent",
    },
  });
  gateway = await createGateway(config).listen();
});
afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

describe("wire-spec step 1 on npm start's config", () => {
  it("GET /api/metrics/validator with no headers at all is the CBOR PaymentRequest", async () => {
    const response = await get(`${gateway.url}/api/metrics/validator`);
    expect(response.status).toBe(402);
    expect(response.headers["content-type"]).toBe("application/x402+cbor");
    const request = decodePaymentRequest(new Uint8Array(response.body));
    expect(request).toMatchObject({ serviceId: "GET /api/metrics/validator", acceptsHumanityGate: true });
  });
});

describe("staking rule 1: only the literal segment `validator` selects validator metrics", () => {
  it("the backend reads /api/metrics/Validator as a user address, and /API/APY is no route", async () => {
    const validator = await get(`${backend.url}/api/metrics/validator`);
    expect(json(validator.body)).toMatchObject({ success: true, data: { adapter: "local", exiting: false } });
    for (const segment of ["Validator", "VALIDATOR", "validatoR"]) {
      const response = await get(`${backend.url}/api/metrics/${segment}`);
      // Not a felt: refused as the user route refuses a bad address, not answered with validator metrics.
      expect(response.status, segment).toBe(400);
      expect(json(response.body), segment).toMatchObject({ success: false });
      expect(JSON.stringify(json(response.body)), segment).toMatch(/userAddress/);
    }
    expect((await get(`${backend.url}/API/APY`)).status).toBe(404);
  });

  it("the gateway prices /api/metrics/Validator as the per-user route (JSON $0.001), not the humans-only CBOR route", async () => {
    for (const segment of ["Validator", "VALIDATOR"]) {
      const response = await get(`${gateway.url}/api/metrics/${segment}`);
      expect(response.status, segment).toBe(402);
      expect(response.headers["content-type"], segment).toBe("application/json; charset=utf-8");
      const offer = decodeBase64Json(response.headers["payment-required"] as string) as {
        resource: { url: string; description: string };
        accepts: Array<{ amount: string }>;
      };
      expect(offer.resource).toMatchObject({
        url: `${PUBLIC_URL}/api/metrics/${segment}`,
        description: "A delegator's positions, rewards and unpool state",
      });
      expect(offer.accepts.map((option) => option.amount)).toEqual(["1000"]);
    }
    // A path in another case than a literal route key is not that route, but the official matcher would
    // price it: refused (400 invalid_path, case_variant), never passed on unpriced.
    const variant = await get(`${gateway.url}/API/APY`);
    expect(variant.status).toBe(400);
    expect(json(variant.body)).toMatchObject({ error: "invalid_path", details: { reason: "case_variant" } });
  });
});

describe("the descriptor's documentation names the gateway", () => {
  it("fetched through the gateway: the gateway's publicUrl, whatever Host or X-Forwarded-* the client sends", async () => {
    const honest = await get(`${gateway.url}/api`);
    expect(json(honest.body).documentation).toBe(`${PUBLIC_URL}/openapi.json`);
    const spoofed = await get(`${gateway.url}/`, {
      host: "evil.example",
      "x-forwarded-host": "evil.example",
      "x-forwarded-proto": "http",
    });
    expect(json(spoofed.body).documentation).toBe(`${PUBLIC_URL}/openapi.json`);
    // What it names is served there, unpriced.
    const openApi = await get(`${gateway.url}/openapi.json`);
    expect([openApi.status, json(openApi.body).openapi]).toEqual([200, "3.1.0"]);
  });

  it("the backend believes X-Forwarded-* only from proxies it trusts, and never over its own publicUrl", async () => {
    const untrusting = await startStakingBackend();
    const pinned = await startStakingBackend({
      config: { trustProxy: ["loopback"], publicUrl: "https://staking.example.com" },
    });
    try {
      const spoof = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
      const direct = json((await get(`${untrusting.url}/api`, spoof)).body);
      expect(direct.documentation).toBe(`${untrusting.url}/openapi.json`);
      expect(json((await get(`${pinned.url}/api`, spoof)).body).documentation).toBe(
        "https://staking.example.com/openapi.json",
      );
    } finally {
      await untrusting.close();
      await pinned.close();
    }
  });
});
