import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestListener } from "node:http";
import request from "supertest";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { MemoryPaymentLedger, x402 } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

const SECRET = "a-pass-secret-of-at-least-32-characters";
const PAYER = "0x00000000000000000000000000000000000000aa";

// Every adapter runs the one core: a pass bought under any of them is honoured the same way.
describe.each(PAYWALL_ADAPTERS)("passes under $name", (adapter) => {
  let facilitator: FacilitatorDouble;
  let app: RequestListener;
  let clock = Date.now();
  const ledger = new MemoryPaymentLedger({ now: () => clock });
  const seen: Array<{ path: string; authorization?: string; cookie?: string }> = [];

  const options = () => ({
    facilitator: { url: facilitator.url, timeoutMs: 2000 },
    payTo: PAY_TO,
    network: "eip155:84532" as const,
    ledger,
    now: () => clock,
    passes: { secret: SECRET },
    routes: {
      "GET /reports/*": { price: "$0.001", pass: { requests: 3 } },
      "GET /other": { price: "$0.001", pass: { requests: 2 } },
      "GET /timed": { price: "$0.001", pass: { seconds: 60 } },
    },
  });

  beforeAll(async () => {
    facilitator = await startFacilitatorDouble();
    const record = (path: string) => (req: { headers: Record<string, unknown> }, res: never) => {
      seen.push({
        path,
        authorization: req.headers.authorization as string | undefined,
        cookie: req.headers.cookie as string | undefined,
      });
      sendJson(res, 200, { path });
    };
    app = adapter.app(options(), {
      "GET /reports/a": record("a") as never,
      "GET /reports/b": record("b") as never,
      "GET /other": record("other") as never,
      "GET /timed": record("timed") as never,
    });
  });

  afterAll(async () => {
    await facilitator.close();
  });

  async function buy(path: string) {
    const res = await request(app)
      .get(path)
      .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("1000"))));
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json(res.headers["payment-response"] as string) as {
      extensions?: { pass?: { token: string; remaining?: number; requests?: number; scope: string } };
    };
    return { res, pass: receipt.extensions?.pass };
  }

  it("offers the pass as an extension", async () => {
    const res = await request(app).get("/reports/a");
    expect(res.status).toBe(402);
    const offer = decodeBase64Json(res.headers["payment-required"] as string) as {
      extensions?: Record<string, unknown>;
    };
    expect(offer.extensions?.pass).toEqual({ scope: "GET /reports/*", requests: 3, seconds: 30 * 86_400 });
  });

  it("pays once, then serves the other requests of the pass on the bearer token, then 402", async () => {
    const settles = facilitator.count("settle");
    const before = seen.length;
    const { res, pass } = await buy("/reports/a");
    expect(pass).toMatchObject({ scope: "GET /reports/*", requests: 3, remaining: 2 });
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toMatch(
      /^x402-pass=xp1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/reports; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    for (const path of ["/reports/b", "/reports/a"]) {
      const used = await request(app).get(path).set("Authorization", `Bearer ${pass?.token}`);
      expect(used.status).toBe(200);
      expect(used.headers["payment-response"]).toBeUndefined();
    }
    const spent = await request(app).get("/reports/b").set("Authorization", `Bearer ${pass?.token}`);
    expect(spent.status).toBe(402);
    expect(spent.body.error).toBe("pass_rejected");
    expect(spent.body.details).toEqual({ reason: "used_up" });
    expect(spent.headers["payment-required"]).toBeDefined();
    // One settlement for three answers; the resource never saw the pass.
    expect(facilitator.count("settle")).toBe(settles + 1);
    const served = seen.slice(before);
    expect(served.map((entry) => entry.path)).toEqual(["a", "b", "a"]);
    expect(served.every((entry) => entry.authorization === undefined)).toBe(true);
  });

  it("serves on the cookie, keeping the resource's other cookies", async () => {
    const { pass } = await buy("/reports/b");
    const used = await request(app)
      .get("/reports/a")
      .set("Cookie", `theme=dark; x402-pass=${pass?.token}; lang=fr`);
    expect(used.status).toBe(200);
    expect(seen.at(-1)?.cookie).toBe("theme=dark; lang=fr");
  });

  it("refuses a token on another scope, a forged one and a malformed one, without serving", async () => {
    const { pass } = await buy("/reports/a");
    const token = pass?.token as string;
    const before = seen.length;
    const cases: Array<[string, string, string]> = [
      ["/other", token, "scope"],
      ["/reports/a", token.slice(0, -2) + (token.endsWith("AA") ? "BA" : "AA"), "signature"],
      ["/reports/a", "xp1.not-a-token", "malformed"],
    ];
    for (const [path, shown, reason] of cases) {
      const res = await request(app).get(path).set("Authorization", `Bearer ${shown}`);
      expect(res.status).toBe(402);
      expect(res.body.details).toEqual({ reason });
    }
    expect(seen.length).toBe(before);
    // A bearer token that is not a pass is the resource's business: the offer, no pass refusal.
    const other = await request(app).get("/other").set("Authorization", "Bearer some-api-key");
    expect(other.status).toBe(402);
    expect(other.body.error).toBe("payment_required");
  });

  it("a time pass serves until it expires, then refuses it", async () => {
    const { pass } = await buy("/timed");
    expect(pass?.requests).toBeUndefined();
    for (let i = 0; i < 5; i++) {
      const used = await request(app).get("/timed").set("Authorization", `Bearer ${pass?.token}`);
      expect(used.status).toBe(200);
    }
    clock += 61_000;
    const late = await request(app).get("/timed").set("Authorization", `Bearer ${pass?.token}`);
    expect(late.status).toBe(402);
    expect(late.body.details).toEqual({ reason: "expired" });
  });

  it("a revocation (refund) ends the payer's passes", async () => {
    const { pass } = await buy("/timed");
    const admin = x402(options() as never);
    await admin.revoke({ payer: PAYER });
    await admin.close();
    const res = await request(app).get("/timed").set("Authorization", `Bearer ${pass?.token}`);
    expect(res.status).toBe(402);
    expect(res.body.details).toEqual({ reason: "unknown" });
  });
});
