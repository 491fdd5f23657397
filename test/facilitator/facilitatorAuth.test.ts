import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/loadConfig.js";
import { createGateway } from "../../src/gateway/createGateway.js";
import { x402Node } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, usdcRequirements } from "../support/payments.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { sendJson } from "../support/paywallAdapters.js";

// Issue #34 item 2: facilitator auth minted at each call from YAML (or code): a bearer token from an
// environment variable, read at each call; a token that cannot be had refuses the payment
// before anything is sent (503, the payment released and usable again).
const ENV = "X402_TEST_FACILITATOR_TOKEN";
let facilitator: FacilitatorDouble;
let upstream: TestUpstream;
beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
});
afterAll(async () => {
  delete process.env[ENV];
  await Promise.all([facilitator?.close(), upstream?.stop()]);
});

const authOf = (endpoint: "verify" | "settle") =>
  facilitator.calls.filter((call) => call.endpoint === endpoint).at(-1)?.headers.authorization;
const paid = () => header(evmPayment(usdcRequirements("10000")));

const yamlGateway = (auth: string) =>
  createGateway(
    parseConfig(
      [
        "listen: { port: 0 }",
        `facilitator: { url: "${facilitator.url}", auth: ${auth} }`,
        `payTo: "${PAY_TO}"`,
        "network: eip155:84532",
        `upstreams: [{ url: "${upstream.url}" }]`,
        'routes: { "GET /priced": { price: $0.01 } }',
        "logging: { level: silent }",
        "metrics: { enabled: false }",
      ].join("\n"),
      { file: "gateway.yaml", env: {} },
    ),
  ).app;

describe("facilitator auth in YAML", () => {
  it("bearerFromEnv: read at each call, a changed token used at once", async () => {
    const app = yamlGateway(`{ bearerFromEnv: ${ENV} }`);
    process.env[ENV] = "first-token";
    expect((await request(app).get("/priced").set("PAYMENT-SIGNATURE", paid())).status).toBe(200);
    expect(authOf("verify")).toBe("Bearer first-token");
    expect(authOf("settle")).toBe("Bearer first-token");
    process.env[ENV] = "rotated-token";
    expect((await request(app).get("/priced").set("PAYMENT-SIGNATURE", paid())).status).toBe(200);
    expect(authOf("settle")).toBe("Bearer rotated-token");
  });

  it("an empty variable: 503 facilitator_unavailable, nothing sent, the same payment pays once it is set", async () => {
    const app = yamlGateway(`{ bearerFromEnv: ${ENV} }`);
    delete process.env[ENV];
    const payment = paid();
    const before = facilitator.calls.length;
    const refused = await request(app).get("/priced").set("PAYMENT-SIGNATURE", payment);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: "facilitator_unavailable" });
    expect(JSON.stringify(refused.body)).not.toContain(ENV);
    expect(facilitator.calls.slice(before).filter((call) => call.endpoint !== "supported")).toEqual([]);
    process.env[ENV] = "late-token";
    expect((await request(app).get("/priced").set("PAYMENT-SIGNATURE", payment)).status).toBe(200);
  });

  it.each([
    ["{ bearerFromEnv: 'NOT A NAME' }", /facilitator\.auth/],
    ["{ bearerFromEnv: '' }", /facilitator\.auth/],
    ["{ bearerFromEnv: X, header: y }", /facilitator\.auth/],
    ["{ token: abc }", /auth/],
  ])("refuses %s at load", (auth, message) => {
    expect(() => yamlGateway(auth)).toThrow(message);
  });
});

describe("facilitator auth in code", () => {
  it("x402Node({ facilitator: { url, auth } }) mints the same header", async () => {
    process.env[ENV] = "code-token";
    const paywall = x402Node({
      facilitator: { url: facilitator.url, auth: { bearerFromEnv: ENV } },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: { "GET /priced": { price: "$0.01" } },
    });
    const app = paywall.wrap((_req, res) => sendJson(res, 200, { ok: true }));
    expect((await request(app).get("/priced").set("PAYMENT-SIGNATURE", paid())).status).toBe(200);
    expect(authOf("settle")).toBe("Bearer code-token");
  });
});
