import type { RequestListener } from "node:http";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { evmPayment, header, usdcRequirements } from "../support/payments.js";
import { sendJson } from "../support/paywallAdapters.js";
import { everyEntryPoint, paywallPeers } from "../support/everyEntryPoint.js";

// Issue #34 item 6: a settle-before route whose body breaks its schema is refused before anything is
// offered, reserved, verified or settled, under every entry point; a body that fits reaches the handler
// (or the upstream) byte for byte.
const SCHEMA = {
  type: "object",
  required: ["userAddress", "amount"],
  additionalProperties: false,
  properties: {
    userAddress: { type: "string", pattern: "^0x[0-9a-fA-F]{1,64}$" },
    amount: { type: "string", pattern: "^[1-9][0-9]{0,30}$" },
  },
};
const GOOD = { userAddress: "0xa11ce", amount: "1000000000000000000" };

const peers = paywallPeers();

const routes = {
  "POST /stake": { price: "$0.01", settle: "before" as const, requestBody: { schema: SCHEMA } },
  "POST /later": { price: "$0.01", requestBody: { schema: SCHEMA } },
};
const echo = (req: { body?: unknown }, res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, 200, { received: req.body });

const SERVERS = everyEntryPoint(peers, routes, { "POST /stake": echo, "POST /later": echo });

const paid = () => header(evmPayment(usdcRequirements("10000")));

describe.each(SERVERS)("requestBody under $name", ({ app: makeApp, upstreamAnswers }) => {
  let app: RequestListener;
  beforeAll(() => {
    app = makeApp();
  });

  const HOSTILE: Array<[string, string | undefined, string, string]> = [
    ["empty object", "application/json", "{}", "schema"],
    ["no body", "application/json", "", "missing"],
    ["not JSON", "application/json", "{", "not_json"],
    ["text/plain", "text/plain", JSON.stringify(GOOD), "content_type"],
    ["extra key", "application/json", JSON.stringify({ ...GOOD, __proto__x: 1 }), "schema"],
    ["__proto__ key", "application/json", `{"__proto__":{"x":1},"userAddress":"0x1","amount":"1"}`, "schema"],
    ["wrong type", "application/json", JSON.stringify({ ...GOOD, amount: 5 }), "schema"],
    ["array", "application/json", "[]", "schema"],
    ["invalid UTF-8", "application/json", '{"userAddress":"\uFFFD"}', "schema"],
  ];

  it.each(HOSTILE)(
    "a paid %s is 400 invalid_request_body: nothing verified or settled",
    async (_, type, body, reason) => {
      const moves = () => peers.facilitator.count("verify") + peers.facilitator.count("settle");
      const before = moves();
      let call = request(app).post("/stake").set("PAYMENT-SIGNATURE", paid());
      if (type !== undefined) call = call.set("Content-Type", type);
      const response = await call.send(body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: "invalid_request_body", details: { reason } });
      expect(moves()).toBe(before);
    },
  );

  it("an unpaid malformed body is refused before the offer (the client never signs)", async () => {
    const response = await request(app).post("/stake").set("Content-Type", "application/json").send("{}");
    expect(response.status).toBe(400);
    expect(response.headers["payment-required"]).toBeUndefined();
    expect(response.body.details.errors[0]).toMatchObject({ path: "/" });
  });

  it("a fitting body is offered, then paid, settled once and handed on intact", async () => {
    const offer = await request(app).post("/stake").set("Content-Type", "application/json").send(GOOD);
    expect(offer.status).toBe(402);
    const settles = peers.facilitator.count("settle");
    const response = await request(app)
      .post("/stake")
      .set("Content-Type", "application/json")
      .set("PAYMENT-SIGNATURE", paid())
      .send(JSON.stringify(GOOD));
    expect(response.status).toBe(200);
    expect(peers.facilitator.count("settle")).toBe(settles + 1);
    if (!upstreamAnswers) expect(response.body).toEqual({ received: GOOD });
    else expect(response.body).toMatchObject({ bodyBytes: Buffer.byteLength(JSON.stringify(GOOD)) });
  });

  it("a settle-after route checks too, and a fitting body is served and settled", async () => {
    const bad = await request(app).post("/later").set("PAYMENT-SIGNATURE", paid()).send({ amount: "1" });
    expect(bad.status).toBe(400);
    const response = await request(app).post("/later").set("PAYMENT-SIGNATURE", paid()).send(GOOD);
    expect(response.status).toBe(200);
  });
});
