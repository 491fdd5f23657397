import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { X402Options } from "../../src/index.js";
import { x402 } from "../../src/index.js";
import { FacilitatorSupportError } from "../../src/paywall/setup/FacilitatorSupportError.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, usdcRequirements } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

// Issue #34 item 2: `facilitatorSupport: "require"` for the middleware, which cannot refuse to start:
// `ready()` rejects, and every priced request is 503 paywall_unavailable (nothing verified) until
// `/supported` lists every option; free requests are served meanwhile.
let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});
afterAll(async () => {
  await facilitator?.close();
});

const options = (): X402Options => ({
  facilitator: { url: facilitator.url },
  payTo: PAY_TO,
  network: "eip155:84532",
  facilitatorSupport: "require",
  routes: { "GET /priced": { price: "$0.01" } },
});
const ok = (_req: unknown, res: Parameters<typeof sendJson>[0]) => sendJson(res, 200, { ok: true });
const BASE_ONLY = [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }];
const SEPOLIA = [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }];

describe.each(PAYWALL_ADAPTERS)("facilitatorSupport: require under $name", (adapter) => {
  it("refuses priced requests with 503 until /supported lists the option (Fastify: does not start); free ones pass", async () => {
    facilitator.kinds = BASE_ONLY;
    if (adapter.name === "x402Fastify") {
      // Fastify can refuse to start: its `ready()` (and `listen()`) rejects instead.
      const paywall = adapter.paywall(options());
      await expect(paywall.ready?.()).rejects.toBeInstanceOf(FacilitatorSupportError);
      return paywall.close();
    }
    const app = adapter.app(options(), { "GET /priced": ok, "GET /free": ok });
    const verifies = facilitator.count("verify");
    const refused = await request(app)
      .get("/priced")
      .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("10000"))));
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      error: "paywall_unavailable",
      details: { check: "facilitatorSupport" },
    });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(facilitator.count("verify")).toBe(verifies);
    expect((await request(app).get("/free")).status).toBe(200);
  });

  it("takes priced requests once every option is listed", async () => {
    facilitator.kinds = SEPOLIA;
    const app = adapter.app(options(), { "GET /priced": ok });
    expect((await request(app).get("/priced")).status).toBe(402);
  });
});

describe("ready()", () => {
  it("rejects with FacilitatorSupportError naming the option, then resolves once it is listed", async () => {
    facilitator.kinds = BASE_ONLY;
    const paywall = x402(options());
    const failure = await paywall.ready().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FacilitatorSupportError);
    expect((failure as Error).message).toContain("GET /priced: exact on eip155:84532");
    facilitator.kinds = SEPOLIA;
    await expect(paywall.ready()).resolves.toBeUndefined();
  });

  it("resolves at once without require", async () => {
    await expect(x402({ ...options(), facilitatorSupport: "warn" }).ready()).resolves.toBeUndefined();
  });
});
