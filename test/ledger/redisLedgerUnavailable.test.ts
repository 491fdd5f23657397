import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { x402 } from "../../src/index.js";
import { LedgerUnavailableError, RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";
import { startFacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { closedPort } from "../gateway/support/startUpstream.js";
import { startCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { MemoryPaymentLedger } from "../../src/ledger/MemoryPaymentLedger.js";
import type { PaymentLedger } from "../../src/ledger/PaymentLedger.js";
import { issueGrant } from "../../src/protocol/cbor/issueGrant.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { cborRefusal, fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";
import { listenOnLoopback } from "../support/listenOnLoopback.js";
import { warningLogger } from "../support/warningLogger.js";

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
      await expect(
        ledger.chargeGrants("id", {
          amount: 1n,
          grants: [{ id: "g", cap: 1n, keepUntilMs: Date.now() + 1_000 }],
        }),
      ).rejects.toBeInstanceOf(LedgerUnavailableError);
    } finally {
      await ledger.close().catch(() => undefined);
    }
  });

  it("makes x402() answer 503 ledger_unavailable with Retry-After, without asking the facilitator; the operator's line says why", async () => {
    const facilitator = await startFacilitatorDouble();
    const { logger, warned } = warningLogger();
    const paywall = x402({
      logger,
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
      // The client reads only "retry later"; the operator's warning carries Redis's reason.
      expect(JSON.stringify(response.body)).not.toContain("Redis");
      const line = warned.find((entry) => entry.code === "ledger_unavailable");
      expect((line?.err as Error | undefined)?.message).toMatch(/^Redis could not reserve the payment: /);
    } finally {
      await paywall.close().catch(() => undefined);
      await facilitator.close();
    }
  });

  it("a grant charge that cannot reach Redis is 503 ledger_unavailable: nothing verified or served, the reservation released", async () => {
    const cbor = await startCborFacilitator();
    const memory = new MemoryPaymentLedger();
    const redis = new RedisPaymentLedger({
      url: `redis://127.0.0.1:${await closedPort()}`,
      commandTimeoutMs: 300,
    });
    // Reservations where they work, grant charges where they cannot be made.
    const ledger: PaymentLedger = {
      reserve: (id, options) => memory.reserve(id, options),
      release: (id, token) => memory.release(id, token),
      spend: (id, token, options) => memory.spend(id, token, options),
      chargeGrants: (id, charge) => redis.chargeGrants(id, charge),
    };
    const root = createSigningKey("ed25519");
    const agent = createSigningKey("ed25519");
    let served = 0;
    const server = await listenOnLoopback(
      express()
        .use(
          x402({
            facilitator: { url: "http://127.0.0.1:9" },
            cbor: { merchantPseudonym: "merchant:m", facilitator: { url: cbor.url } },
            payTo: PAY_TO,
            network: "eip155:84532",
            routes: { "GET /priced": { cbor: { currency: "USDC", amount: "10" } } },
            ledger,
          }),
        )
        .get("/priced", (_req, res) => void (served++, res.json({ served: true }))),
    );
    try {
      const { offer } = await fetchCborOffer(`${server.url}/priced`);
      const chain = [
        issueGrant(root, {
          delegate: agent.publicKey,
          scope: { kind: "any" },
          cap: { currency: "USDC", amount: 100n },
          validUntil: Math.floor(Date.now() / 1000) + 60,
        }),
      ];
      const response = await postCborPayment(
        `${server.url}/priced`,
        signedIntent(offer, agent, {}, { delegationChain: chain }),
      );
      expect(response.status).toBe(503);
      expect((await cborRefusal(response)).error).toBe("ledger_unavailable");
      expect([cbor.calls.verify, served, memory.size]).toEqual([0, 0, 0]);
    } finally {
      await server.close();
      await redis.close().catch(() => undefined);
      await cbor.stop();
    }
  });
});
