import { declarePaymentIdentifierExtension } from "@x402/extensions/payment-identifier";
import request from "supertest";
import type { RequestListener } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { x402 } from "../../src/index.js";
import { evmPayment, header, PAY_TO, usdcRequirements } from "../support/payments.js";
import { sendJson } from "../support/paywallAdapters.js";
import { everyEntryPoint, paywallPeers } from "../support/everyEntryPoint.js";

// Issue #34 item 4 under every entry point (the anvil suite has the official client and Redis): a retry
// with the same payment-identifier and payment is answered from the kept response, settled once.
const peers = paywallPeers();

const routes = {
  "GET /report": {
    price: "$0.01",
    extensions: { "payment-identifier": declarePaymentIdentifierExtension() },
  },
  "GET /strict": {
    price: "$0.01",
    extensions: { "payment-identifier": declarePaymentIdentifierExtension(true) },
  },
};
let serial = 0;
const report = (_req: unknown, res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, 200, { serial: ++serial });

const SERVERS = everyEntryPoint(peers, routes, { "GET /report": report, "GET /strict": report });

const withIdentifier = (id: unknown) =>
  header({
    ...evmPayment(usdcRequirements("10000")),
    extensions: { "payment-identifier": { info: { required: false, id } } },
  });

describe.each(SERVERS)("payment-identifier under $name", ({ app: makeApp }) => {
  let app: RequestListener;
  beforeAll(() => {
    app = makeApp();
  });

  it("the same identifier and payment again: the same answer, settled once", async () => {
    const payment = withIdentifier(`id_${Date.now()}_${Math.random().toString(36).slice(2)}`);
    const settles = peers.facilitator.count("settle");
    const first = await request(app).get("/report").set("PAYMENT-SIGNATURE", payment);
    expect(first.status).toBe(200);
    const again = await request(app).get("/report").set("PAYMENT-SIGNATURE", payment);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers["payment-response"]).toBe(first.headers["payment-response"]);
    expect(peers.facilitator.count("settle")).toBe(settles + 1);
  });

  it("a malformed identifier is 400 invalid_payment; a required one missing too", async () => {
    for (const id of ["short", "x".repeat(129), "has space in it 123", 42]) {
      const response = await request(app).get("/report").set("PAYMENT-SIGNATURE", withIdentifier(id));
      expect(response.status, String(id)).toBe(400);
      expect(response.body).toMatchObject({ error: "invalid_payment" });
    }
    const missing = await request(app)
      .get("/strict")
      .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("10000"))));
    expect(missing.status).toBe(400);
  });
});

describe("requestBody: { openApi: true } in code", () => {
  it("is refused at start-up: only the gateway reads an upstream's OpenAPI document", () => {
    expect(() =>
      x402({
        facilitator: { url: "http://127.0.0.1:1" },
        payTo: PAY_TO,
        network: "eip155:84532",
        routes: { "POST /x": { price: "$0.01", requestBody: { openApi: true } } },
      }),
    ).toThrow(/requestBody\.openApi: only the gateway/);
  });
});

describe("payment-identifier on a settle-before route", () => {
  it("is refused at start-up: only a held (settle-after) response can be kept for a retry", () => {
    const routes = (settle: "before" | "after") => ({
      "POST /x": {
        price: "$0.01",
        settle,
        extensions: { "payment-identifier": declarePaymentIdentifierExtension(false) },
      },
    });
    const options = { facilitator: { url: "http://127.0.0.1:1" }, payTo: PAY_TO, network: "eip155:84532" };
    expect(() => x402({ ...options, routes: routes("before") })).toThrow(/payment-identifier.*settle: after/);
    expect(() => x402({ ...options, routes: routes("after") })).not.toThrow();
  });
});
