import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { x402 } from "../../src/index.js";
import { LedgerUnavailableError, RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";
import { startFacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { closedPort } from "../proxy/support/startUpstream.js";

describe("a Redis ledger that cannot reach Redis", () => {
  it("fails every operation with LedgerUnavailableError instead of queueing it", async () => {
    const ledger = new RedisPaymentLedger({
      url: `redis://127.0.0.1:${await closedPort()}`,
      commandTimeoutMs: 300,
    });
    try {
      await expect(ledger.reserve("id", { holdMs: 1_000 })).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.release("id", "token")).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.spend("id", "token", { keepUntilMs: Date.now() + 1_000 })).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
    } finally {
      await ledger.close().catch(() => undefined);
    }
  });

  it("makes x402() answer 503 ledger_unavailable with Retry-After, without asking the facilitator", async () => {
    const facilitator = await startFacilitatorDouble();
    const paywall = x402({
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: { "GET /priced": { price: "$0.01" } },
      ledger: { type: "redis", url: `redis://127.0.0.1:${await closedPort()}`, commandTimeoutMs: 300 },
    });
    try {
      const app = express()
        .use(paywall)
        .get("/priced", (_req, res) => res.json({ served: true }));
      const response = await request(app)
        .get("/priced")
        .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("10000", { payTo: PAY_TO }))));
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ error: "ledger_unavailable" });
      expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
      expect(facilitator.count("verify")).toBe(0);
    } finally {
      await paywall.close().catch(() => undefined);
      await facilitator.close();
    }
  });
});
