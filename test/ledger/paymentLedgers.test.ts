import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import express from "express";
import request from "supertest";
import { ledgerPairs } from "../support/ledgerPairs.js";
import { x402 } from "../../src/index.js";
import { startFacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const { kinds, close } = ledgerPairs("x402-test:");

afterAll(close);

describe.each(kinds)("%s payment ledger", (_kind, make) => {
  it("reserves once: in progress elsewhere, spent after spend", async () => {
    const [a, b] = make();
    const first = await a.reserve("p1", { holdMs: 60_000 });
    expect(first.status).toBe("reserved");
    expect(await b.reserve("p1", { holdMs: 60_000 })).toEqual({ status: "in_progress" });
    if (first.status !== "reserved") return;
    await a.spend("p1", first.token, { keepUntilMs: Date.now() + 60_000 });
    expect(await b.reserve("p1", { holdMs: 60_000 })).toEqual({ status: "spent" });
  });

  it("a release frees the payment; a stale token releases nothing", async () => {
    const [a, b] = make();
    const first = await a.reserve("p2", { holdMs: 60_000 });
    if (first.status !== "reserved") throw new Error("expected a reservation");
    await b.release("p2", "not-the-token");
    expect(await b.reserve("p2", { holdMs: 60_000 })).toEqual({ status: "in_progress" });
    await b.release("p2", first.token);
    expect((await b.reserve("p2", { holdMs: 60_000 })).status).toBe("reserved");
  });

  it("a reservation expires after holdMs (a crashed instance does not lock a payment forever)", async () => {
    const [a, b] = make();
    expect((await a.reserve("p3", { holdMs: 30 })).status).toBe("reserved");
    await expect
      .poll(async () => (await b.reserve("p3", { holdMs: 60_000 })).status, { timeout: 5000 })
      .toBe("reserved");
  });

  it("only one of many concurrent reservations wins", async () => {
    const [a, b] = make();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).reserve("p4", { holdMs: 60_000 })),
    );
    expect(outcomes.filter((outcome) => outcome.status === "reserved")).toHaveLength(1);
  });
});

describe("two gateway instances sharing a Redis ledger", () => {
  it("let one payment pay for one response across instances", async () => {
    const facilitator = await startFacilitatorDouble();
    const keyPrefix = `x402-test:${randomUUID()}:`;
    const apps = [0, 1].map(() => {
      const paywall = x402({
        facilitator: { url: facilitator.url },
        payTo: PAY_TO,
        network: "eip155:84532",
        ledger: { type: "redis", url: REDIS_URL, keyPrefix },
        routes: { "GET /x": { price: "$0.001" } },
      });
      const app = express();
      app.use(paywall);
      app.get("/x", (_req, res) => res.json({ ok: true }));
      return { app, paywall };
    });
    try {
      const payment = header(evmPayment(usdcRequirements("1000")));
      expect((await request(apps[0]!.app).get("/x").set("PAYMENT-SIGNATURE", payment)).status).toBe(200);
      const replay = await request(apps[1]!.app).get("/x").set("PAYMENT-SIGNATURE", payment);
      expect(replay.status).toBe(402);
      expect(replay.body.error).toBe("payment_already_used");
      expect(facilitator.count("settle")).toBe(1);
    } finally {
      await Promise.all(apps.map(({ paywall }) => paywall.close()));
      await facilitator.close();
    }
  });
});
