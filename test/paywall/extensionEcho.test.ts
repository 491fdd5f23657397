import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402 } from "../../src/adapters/express.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO } from "../support/payments.js";

let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});
afterAll(() => facilitator.close());

const PARTNER = { info: { partner: "acme", tier: 2 }, schema: { type: "object" } };

function app() {
  const served = { count: 0 };
  const instance = express();
  instance.use(
    x402({
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: { "GET /r": { price: "$0.001", extensions: { partner: PARTNER } } },
    }),
  );
  instance.get("/r", (_req, res) => {
    served.count++;
    res.json({ ok: true });
  });
  return { instance, served };
}

async function paidWith(extensions: Record<string, unknown> | undefined) {
  const { instance, served } = app();
  const offer = await request(instance).get("/r");
  const required = decodeBase64Json(offer.headers["payment-required"] as string) as {
    accepts: Parameters<typeof evmPayment>[0][];
    resource: unknown;
    extensions: Record<string, unknown>;
  };
  expect(required.extensions).toEqual({ partner: PARTNER });
  const payment = { ...evmPayment(required.accepts[0]!), resource: required.resource, extensions };
  const verifies = facilitator.count("verify");
  const settles = facilitator.count("settle");
  const response = await request(instance).get("/r").set("PAYMENT-SIGNATURE", header(payment));
  return {
    response,
    served: served.count,
    verified: facilitator.count("verify") - verifies,
    settled: facilitator.count("settle") - settles,
  };
}

describe("the client's echo of the offer's extensions (extension_echo_mismatch, as @x402/core)", () => {
  it("an echo that keeps what was offered (and adds to it) pays", async () => {
    const { response, served, settled } = await paidWith({
      partner: { ...PARTNER, info: { ...PARTNER.info, seen: 1 } },
    });
    expect(response.status).toBe(200);
    expect([served, settled]).toEqual([1, 1]);
  });

  it("no echo at all pays", async () => {
    const { response } = await paidWith(undefined);
    expect(response.status).toBe(200);
  });

  it("an echo that changes an offered value: 402 extension_echo_mismatch with the offer, nothing verified, settled or served", async () => {
    const { response, served, verified, settled } = await paidWith({
      partner: { ...PARTNER, info: { partner: "acme", tier: 3 } },
    });
    expect(response.status).toBe(402);
    expect(response.body.error).toBe("extension_echo_mismatch");
    expect(response.body.details).toEqual({ extension: "partner" });
    expect(response.headers["payment-required"]).toBeDefined();
    expect([served, verified, settled]).toEqual([0, 0, 0]);
  });
});
