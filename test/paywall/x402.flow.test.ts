import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createServer, request as httpRequest, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { decodeErrorBody } from "../../src/protocol/cbor/ErrorBody.js";
import { MemoryPaymentLedger, x402, type PaidEvent, type ErrorEvent } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

// The same cases under each adapter: the payment flow does not depend on the framework.
describe.each(PAYWALL_ADAPTERS)("x402 flow under $name", (adapter) => {
  let facilitator: FacilitatorDouble;
  let app: RequestListener;
  const hits: Record<string, number> = {};
  const paid: PaidEvent[] = [];
  const errors: ErrorEvent[] = [];
  let releaseSlow: (() => void) | undefined;
  let settleCountSeenByHandler = -1;

  const APY = usdcRequirements("1000");
  const STAKE = usdcRequirements("10000");

  function hit(name: string): void {
    hits[name] = (hits[name] ?? 0) + 1;
  }

  beforeAll(async () => {
    facilitator = await startFacilitatorDouble();
    app = adapter.app(
      {
        facilitator: {
          url: facilitator.url,
          timeoutMs: 500,
          settleTimeoutMs: 500,
          headers: (endpoint) => ({ authorization: `Bearer test-${endpoint}` }),
        },
        payTo: PAY_TO,
        network: "eip155:84532",
        // Far above Express's default error page (its stack names paths as long as the clone's folder).
        maxHeldResponseBytes: 8192,
        routes: {
          "GET /api/apy": { price: "$0.001", description: "Current APY" },
          "POST /api/stake": { price: "$0.01" },
          "GET /fail": { price: "$0.001" },
          "GET /writehead500": { price: "$0.001" },
          "GET /throws": { price: "$0.001" },
          "GET /stream": { price: "$0.001" },
          "GET /big": { price: "$0.001" },
          "GET /slow": { price: "$0.001" },
          "GET /not-modified": { price: "$0.001" },
          "POST /before": { price: "$0.001", settle: "before" },
          "GET /pq": { price: "$0.001", scheme: "exact-pq" },
        },
        onPaid: (event) => paid.push(event),
        onError: (event) => errors.push(event),
      },
      {
        "GET /api/apy": (_req, res) => {
          hit("apy");
          res.setHeader("Cache-Control", "public, max-age=60");
          sendJson(res, 200, { apy: "5.25" });
        },
        "POST /api/stake": (req, res) => {
          hit("stake");
          sendJson(res, 201, { staked: (req.body as { amount: string }).amount });
        },
        "GET /fail": (_req, res) => {
          hit("fail");
          sendJson(res, 500, { error: "upstream broke", secret: "not for free" });
        },
        "GET /writehead500": (_req, res) => {
          hit("writehead500");
          res.writeHead(500, { "content-type": "text/plain" });
          res.end("broken");
        },
        "GET /throws": () => {
          hit("throws");
          throw new Error("handler exploded");
        },
        "GET /stream": (_req, res) => {
          hit("stream");
          res.writeHead(200, { "content-type": "text/plain" });
          let n = 0;
          const tick = () => {
            if (n === 5) return res.end("done");
            res.write(`chunk${n++};`);
            setImmediate(tick);
          };
          tick();
        },
        "GET /big": (_req, res) => {
          hit("big");
          res.write("x".repeat(3000));
          res.write("y".repeat(3000));
          res.end("z".repeat(3000));
        },
        "GET /slow": async (_req, res) => {
          hit("slow");
          await new Promise<void>((resolve) => (releaseSlow = resolve));
          sendJson(res, 200, { slow: true });
        },
        "GET /not-modified": (_req, res) => {
          hit("not-modified");
          res.statusCode = 304;
          res.end();
        },
        "POST /before": (_req, res) => {
          hit("before");
          settleCountSeenByHandler = facilitator.count("settle");
          sendJson(res, 200, { ran: true });
        },
        "GET /pq": (_req, res) => sendJson(res, 200, { pq: true }),
        "GET /free": (_req, res) => {
          hit("free");
          sendJson(res, 200, { free: true });
        },
      },
    );
  });

  afterAll(async () => {
    await facilitator.close();
  });

  afterEach(() => {
    facilitator.mode = "normal";
    facilitator.verify = () => ({ isValid: true, payer: "0x3333333333333333333333333333333333333333" });
    facilitator.settle = () => ({
      success: true,
      transaction: `0x${"ab".repeat(32)}`,
      network: "eip155:84532",
    });
  });

  const decode = (value: string | undefined) => decodeBase64Json(value ?? "") as Record<string, unknown>;

  describe("unpriced requests", () => {
    it("pass through untouched and cost no facilitator call", async () => {
      const before = facilitator.calls.length;
      const res = await request(app).get("/free");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ free: true });
      expect(res.headers["payment-required"]).toBeUndefined();
      expect(res.headers["cache-control"]).toBeUndefined();
      expect(facilitator.calls.filter((call) => call.endpoint !== "supported").length).toBe(
        facilitator.calls.slice(0, before).filter((call) => call.endpoint !== "supported").length,
      );
    });
  });

  describe("the 402 offer", () => {
    it("answers an unpaid request with PAYMENT-REQUIRED and the same object as the body", async () => {
      const before = hits.apy ?? 0;
      const res = await request(app).get("/api/apy?tokenAddress=0x1").set("Host", "api.test");
      expect(res.status).toBe(402);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.headers.vary).toMatch(/Accept/);
      const offer = decode(res.headers["payment-required"]);
      expect(offer).toEqual({
        x402Version: 2,
        error: "payment_required",
        resource: {
          url: "http://api.test/api/apy?tokenAddress=0x1",
          description: "Current APY",
          mimeType: "application/json",
        },
        accepts: [APY],
      });
      expect(res.body).toMatchObject(offer);
      expect(res.body.message).toMatch(/costs a payment/);
      expect(hits.apy ?? 0).toBe(before);
    });

    it("prices HEAD like GET, and the normalised path like the route", async () => {
      expect((await request(app).head("/api/apy")).status).toBe(402);
      const res = await request(app).get("/API//./apy/");
      expect(res.status).toBe(402);
      // The offer names the normalised path (case kept, as the handler will see it).
      expect(decode(res.headers["payment-required"]).resource).toMatchObject({
        url: expect.stringMatching(/\/API\/apy$/),
      });
    });

    it("refuses an ambiguous path with 400 invalid_path", async () => {
      const res = await request(app).get("/api%2Fapy");
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "invalid_path",
        message: expect.any(String),
        details: { reason: "encoded_slash" },
      });
    });
  });

  describe("a paid request", () => {
    it("is verified with the server's requirements, served, settled, and marked paid", async () => {
      const calls = facilitator.calls.length;
      const payment = evmPayment({
        ...APY,
        extra: { name: "Evil", version: "9" },
        maxTimeoutSeconds: 999999,
      });
      const res = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", header(payment));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ apy: "5.25" });
      expect(res.headers["cache-control"]).toBe("private");
      expect(decode(res.headers["payment-response"])).toMatchObject({
        success: true,
        transaction: `0x${"ab".repeat(32)}`,
      });
      const mine = facilitator.calls.slice(calls).filter((call) => call.endpoint !== "supported");
      expect(mine.map((call) => call.endpoint)).toEqual(["verify", "settle"]);
      for (const call of mine) {
        expect(call.body).toMatchObject({
          x402Version: 2,
          paymentRequirements: APY,
          paymentPayload: payment,
        });
        expect(call.headers.authorization).toBe(`Bearer test-${call.endpoint}`);
      }
      expect(paid.at(-1)).toEqual({
        payer: "0x3333333333333333333333333333333333333333",
        amount: "1000",
        asset: APY.asset,
        network: "eip155:84532",
        payTo: APY.payTo,
        route: "GET /api/apy",
        transaction: `0x${"ab".repeat(32)}`,
      });
    });

    it("works for a POST with a JSON body and a 201", async () => {
      const res = await request(app)
        .post("/api/stake")
        .set("PAYMENT-SIGNATURE", header(evmPayment(STAKE)))
        .send({ amount: "5" });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ staked: "5" });
      expect(res.headers["payment-response"]).toBeDefined();
    });

    it("accepts unpadded base64 and base64url headers", async () => {
      const padded = header(evmPayment(APY));
      const url = padded.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
      expect((await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", url)).status).toBe(200);
    });

    it("pays for one response only: a replay is 402 payment_already_used", async () => {
      const payment = header(evmPayment(APY));
      expect((await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment)).status).toBe(200);
      const settles = facilitator.count("settle");
      const before = hits.apy;
      const replay = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(replay.status).toBe(402);
      expect(replay.body.error).toBe("payment_already_used");
      expect(decode(replay.headers["payment-required"]).accepts).toEqual([APY]);
      expect(facilitator.count("settle")).toBe(settles);
      expect(hits.apy).toBe(before);
    });

    it("the same payment in flight elsewhere is 409 payment_in_progress", async () => {
      const payment = header(evmPayment(APY));
      const first = request(app)
        .get("/slow")
        .set("PAYMENT-SIGNATURE", payment)
        .then((res) => res);
      await expect.poll(() => releaseSlow, { timeout: 5000 }).toBeDefined();
      const second = await request(app).get("/slow").set("PAYMENT-SIGNATURE", payment);
      expect(second.status).toBe(409);
      expect(second.body.error).toBe("payment_in_progress");
      releaseSlow?.();
      expect((await first).status).toBe(200);
      expect(hits.slow).toBe(1);
    });
  });

  describe("bad payments", () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["not base64", "%%%not-base64%%%", { stage: "base64" }],
      ["not JSON", Buffer.from("{oops").toString("base64"), { stage: "json" }],
      ["missing accepted", header({ x402Version: 2, payload: {} }), { field: "accepted" }],
      ["wrong version", header({ ...evmPayment(APY), x402Version: 1 }), { field: "x402Version" }],
      ["amount not a decimal", header(evmPayment({ ...APY, amount: "1e3" })), { field: "accepted.amount" }],
      [
        "authorization without nonce",
        header({ ...evmPayment(APY), payload: { signature: "0x11", authorization: { from: PAY_TO } } }),
        { field: "payload.authorization.to" },
      ],
    ];

    it.each(cases)(
      "%s → 400 invalid_payment naming what is wrong, nothing verified",
      async (_name, value, details) => {
        const verifies = facilitator.count("verify");
        const res = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", value);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: "invalid_payment", details });
        expect(facilitator.count("verify")).toBe(verifies);
      },
    );

    it("an oversized header is 431", async () => {
      // Node's own limit (16 KiB for all headers) would answer first; the gateway raises it, so do we here.
      const server = createServer({ maxHeaderSize: 64 * 1024 }, app);
      const res = await request(server)
        .get("/api/apy")
        .set("PAYMENT-SIGNATURE", "A".repeat(17 * 1024));
      expect(res.status).toBe(431);
      expect(res.body.error).toBe("header_too_large");
    });

    it.each([
      ["amount", { ...APY, amount: "999" }, {}, "accepted.amount"],
      ["payTo", { ...APY, payTo: "0x4444444444444444444444444444444444444444" }, {}, "accepted.payTo"],
      ["asset", { ...APY, asset: "0x5555555555555555555555555555555555555555" }, {}, "accepted.asset"],
      ["network", { ...APY, network: "eip155:8453" }, {}, "accepted.network"],
      ["authorization value", APY, { value: "1" }, "payload.authorization.value"],
      [
        "authorization recipient",
        APY,
        { to: "0x4444444444444444444444444444444444444444" },
        "payload.authorization.to",
      ],
    ])("a payment with another %s is 402 payment_mismatch", async (_name, accepted, authorization, field) => {
      const verifies = facilitator.count("verify");
      const res = await request(app)
        .get("/api/apy")
        .set("PAYMENT-SIGNATURE", header(evmPayment(accepted, authorization as Record<string, string>)));
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: "payment_mismatch", details: { field } });
      expect(facilitator.count("verify")).toBe(verifies);
    });

    it("matches addresses case-insensitively and amounts as integers", async () => {
      const accepted = {
        ...APY,
        payTo: APY.payTo.toUpperCase().replace("0X", "0x"),
        asset: APY.asset.toLowerCase(),
      };
      expect(
        (
          await request(app)
            .get("/api/apy")
            .set("PAYMENT-SIGNATURE", header(evmPayment(accepted)))
        ).status,
      ).toBe(200);
    });

    it("a payment the facilitator finds invalid is 402 verification_failed with its reason, and stays usable", async () => {
      facilitator.verify = () => ({ isValid: false, invalidReason: "insufficient_funds" });
      const payment = header(evmPayment(APY));
      const before = hits.apy;
      const res = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({
        error: "verification_failed",
        details: { reason: "insufficient_funds" },
      });
      expect(hits.apy).toBe(before);
      facilitator.verify = () => ({ isValid: true });
      expect((await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment)).status).toBe(200);
    });

    it("a payment content type this gateway does not speak is 415", async () => {
      const res = await request(app)
        .get("/api/apy")
        .set("Content-Type", "application/x402+cbor")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)))
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(415);
      // It named a CBOR payment: its refusal is CBOR too.
      expect(res.headers["content-type"]).toBe("application/x402+cbor");
      expect(decodeErrorBody(new Uint8Array(res.body as Buffer)).error).toBe("unsupported_media_type");
    });
  });

  describe("facilitator faults never serve unpaid", () => {
    it.each([
      ["hang", 503, "facilitator_unavailable"],
      ["http500", 503, "facilitator_unavailable"],
      ["malformed", 502, "facilitator_error"],
      ["http400", 502, "facilitator_error"],
    ] as const)("verify %s → %i %s, upstream not reached", async (mode, status, code) => {
      facilitator.mode = mode;
      const before = hits.apy;
      const res = await request(app)
        .get("/api/apy")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(status);
      expect(res.body.error).toBe(code);
      if (status === 503) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      expect(hits.apy).toBe(before);
    });

    it("an unreachable facilitator is 503 with Retry-After", async () => {
      const down = adapter.app(
        {
          facilitator: { url: "http://127.0.0.1:9" },
          payTo: PAY_TO,
          network: "eip155:84532",
          routes: { "GET /x": { price: "$1" } },
        },
        {
          "GET /x": () => {
            throw new Error("must not run");
          },
        },
      );
      const res = await request(down)
        .get("/x")
        .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("1000000"))));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        error: "facilitator_unavailable",
        details: { endpoint: "verify", reason: "unreachable" },
      });
      expect(res.headers["retry-after"]).toBe("5");
    });

    it("a settlement that fails drops the held body: 402 settlement_failed with PAYMENT-RESPONSE", async () => {
      facilitator.settle = () => ({
        success: false,
        transaction: "",
        network: "eip155:84532",
        errorReason: "nonce_used",
      });
      const res = await request(app)
        .get("/api/apy")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ error: "settlement_failed", details: { reason: "nonce_used" } });
      expect(JSON.stringify(res.body)).not.toContain("5.25");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(decode(res.headers["payment-response"])).toMatchObject({
        success: false,
        errorReason: "nonce_used",
      });
    });

    it("a settlement that times out has an unknown outcome: 503 settlement_unknown, body kept for a retry with the same payment", async () => {
      facilitator.settle = () => {
        facilitator.mode = "hang";
        return { success: true, transaction: "0x", network: "x" };
      };
      const verifyThenHang = hangAfterVerify();
      const payment = header(evmPayment(APY));
      const before = hits.apy ?? 0;
      const res = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        error: "settlement_unknown",
        details: { reason: expect.stringContaining("rpcUrl") },
      });
      expect(res.headers["retry-after"]).toBe("5");
      expect(JSON.stringify(res.body)).not.toContain("5.25");

      // Another payment for the same route is not blocked; the same payment while the facilitator still hangs stays unknown.
      facilitator.mode = "normal";
      facilitator.verify = verifyThenHang;
      facilitator.settle = () => ({
        success: true,
        transaction: `0x${"cd".repeat(32)}`,
        network: "eip155:84532",
      });
      const settlesBefore = facilitator.count("settle");
      const retry = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ apy: "5.25" });
      expect(decode(retry.headers["payment-response"])).toMatchObject({
        success: true,
        transaction: `0x${"cd".repeat(32)}`,
      });
      // The handler ran once, for the first request; the retry was served the kept response.
      expect(hits.apy).toBe(before + 1);
      expect(facilitator.count("settle")).toBe(settlesBefore + 1);
      const again = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(again.status).toBe(402);
      expect(again.body).toMatchObject({ error: "payment_already_used" });
    });

    it("a retry whose settlement is still unknown stays 503 settlement_unknown (never 2xx unpaid)", async () => {
      const payment = header(evmPayment(APY));
      facilitator.settle = () => {
        throw new Error("unused");
      };
      const verifyThenHang = hangAfterVerify();
      expect((await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment)).status).toBe(503);
      facilitator.mode = "normal";
      facilitator.verify = verifyThenHang;
      facilitator.settle = () => ({
        success: false,
        transaction: "",
        network: "eip155:84532",
        errorReason: "nonce_used",
      });
      const retry = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(retry.status).toBe(503);
      expect(retry.body).toMatchObject({
        error: "settlement_unknown",
        details: { reason: expect.stringContaining("nonce_used") },
      });
      expect(JSON.stringify(retry.body)).not.toContain("5.25");
    });
  });

  /** The next /verify answers, then the facilitator hangs (so /settle times out); returns the plain verify. */
  function hangAfterVerify(): FacilitatorDouble["verify"] {
    facilitator.mode = "normal";
    const verify = facilitator.verify;
    facilitator.verify = (body) => {
      const verdict = verify(body);
      facilitator.mode = "hang";
      return verdict;
    };
    return verify;
  }

  describe("settle only on 2xx", () => {
    it.each([
      ["/fail", 500, "upstream broke"],
      ["/writehead500", 500, "broken"],
      ["/throws", 500, ""],
      ["/not-modified", 304, ""],
    ])(
      "%s answering %i is released unchanged and not settled; the payment stays usable",
      async (path, status, text) => {
        const payment = header(evmPayment(APY));
        const settles = facilitator.count("settle");
        const res = await request(app).get(path).set("PAYMENT-SIGNATURE", payment);
        expect(res.status).toBe(status);
        if (text) expect(res.text).toContain(text);
        expect(res.headers["payment-response"]).toBeUndefined();
        expect(facilitator.count("settle")).toBe(settles);
        const retry = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
        expect(retry.status).toBe(200);
      },
    );

    it("a client that goes away before the answer is complete is not charged; the payment stays usable", async () => {
      const server = createServer(app).listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      const { port } = server.address() as AddressInfo;
      const payment = header(evmPayment(APY));
      const settles = facilitator.count("settle");
      releaseSlow = undefined;
      const client = httpRequest({
        host: "127.0.0.1",
        port,
        path: "/slow",
        headers: { "payment-signature": payment },
      });
      client.on("error", () => {});
      client.end();
      await expect.poll(() => releaseSlow, { timeout: 5000 }).toBeDefined();
      client.destroy();
      const connections = () =>
        new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
      await expect.poll(connections, { timeout: 5000 }).toBe(0);
      (releaseSlow as (() => void) | undefined)?.();
      const retry = await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", payment);
      expect(retry.status).toBe(200);
      expect(facilitator.count("settle")).toBe(settles + 1);
      server.close();
    });

    it("holds a streamed response and releases it whole after settlement", async () => {
      const res = await request(app)
        .get("/stream")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(200);
      expect(res.text).toBe("chunk0;chunk1;chunk2;chunk3;chunk4;done");
      expect(res.headers["content-type"]).toBe("text/plain");
      expect(res.headers["payment-response"]).toBeDefined();
    });

    it("leaks no streamed byte when the settlement fails", async () => {
      facilitator.settle = () => ({
        success: false,
        transaction: "",
        network: "eip155:84532",
        errorReason: "boom",
      });
      const res = await request(app)
        .get("/stream")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(402);
      expect(res.text).not.toContain("chunk");
      expect(res.headers["content-type"]).toMatch(/application\/json/);
    });

    it("a response over maxHeldResponseBytes is 502 response_too_large and not settled", async () => {
      const settles = facilitator.count("settle");
      const res = await request(app)
        .get("/big")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: "response_too_large", details: { limit: 8192 } });
      expect(res.text).not.toContain("xxx");
      expect(facilitator.count("settle")).toBe(settles);
    });

    it("mode before settles first, then runs the handler", async () => {
      const res = await request(app)
        .post("/before")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(200);
      expect(res.headers["payment-response"]).toBeDefined();
      expect(settleCountSeenByHandler).toBe(facilitator.count("settle"));
    });

    it("mode before with an unknown settlement: 503 settlement_unknown, handler not run; the retry settles, then runs it once", async () => {
      const payment = header(evmPayment(APY));
      const before = hits.before ?? 0;
      const verify = hangAfterVerify();
      const unknown = await request(app).post("/before").set("PAYMENT-SIGNATURE", payment);
      expect(unknown.status).toBe(503);
      expect(unknown.body).toMatchObject({ error: "settlement_unknown" });
      expect(hits.before ?? 0).toBe(before);
      facilitator.mode = "normal";
      facilitator.verify = verify;
      const retry = await request(app).post("/before").set("PAYMENT-SIGNATURE", payment);
      expect(retry.status).toBe(200);
      expect(retry.headers["payment-response"]).toBeDefined();
      expect(hits.before).toBe(before + 1);
    });

    it("mode before does not run the handler when the settlement fails", async () => {
      facilitator.settle = () => ({
        success: false,
        transaction: "",
        network: "eip155:84532",
        errorReason: "nope",
      });
      const before = hits.before ?? 0;
      const res = await request(app)
        .post("/before")
        .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("settlement_failed");
      expect(hits.before ?? 0).toBe(before);
    });
  });

  describe("hooks and reports", () => {
    it("reports rejections to onError with their code and route", async () => {
      await request(app).get("/api/apy").set("PAYMENT-SIGNATURE", "%%%");
      expect(errors.at(-1)).toMatchObject({ code: "invalid_payment", route: "GET /api/apy" });
    });

    it("checkSupport names the route options the facilitator does not list", async () => {
      const middleware = adapter.paywall({
        facilitator: { url: facilitator.url },
        payTo: PAY_TO,
        network: "eip155:84532",
        routes: { "GET /a": { price: "$1" }, "GET /pq": { price: "$1", scheme: "exact-pq" } },
      });
      expect(await middleware.checkSupport()).toEqual({
        ok: false,
        unsupported: ["GET /pq: exact-pq on eip155:84532"],
      });
    });

    it("tls_required when HTTPS is required and the request is plain HTTP", async () => {
      const strict = adapter.app(
        {
          facilitator: { url: facilitator.url },
          payTo: PAY_TO,
          network: "eip155:84532",
          requireTls: true,
          routes: { "GET /x": { price: "$1" } },
        },
        {},
      );
      const res = await request(strict).get("/x");
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("tls_required");
      expect(res.body.message).toContain("requireTls");
    });

    // Trusting a proxy's X-Forwarded-* is Express's `trust proxy`; the node:http adapter trusts only the socket.
    it.runIf(adapter.name === "express")(
      "requires HTTPS by default except from loopback clients; a trusted proxy's X-Forwarded-Proto counts",
      async () => {
        const app = express();
        app.set("trust proxy", "loopback");
        const verifiesBefore = facilitator.count("verify");
        app.use(
          x402({
            facilitator: { url: facilitator.url },
            payTo: PAY_TO,
            network: "eip155:84532",
            routes: { "GET /x": { price: "$1" } },
          }),
        );
        app.get("/x", () => {
          throw new Error("must not run");
        });
        // From loopback (tests, local stacks): plain HTTP is fine.
        expect((await request(app).get("/x")).status).toBe(402);
        // A remote client through a (trusted, loopback) proxy over plain HTTP: refused, nothing verified.
        const remote = await request(app)
          .get("/x")
          .set("X-Forwarded-For", "203.0.113.5")
          .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("1000000"))));
        expect(remote.status).toBe(403);
        expect(remote.body).toMatchObject({ error: "tls_required", details: { setting: "requireTls" } });
        // The same client over HTTPS at the proxy: offered.
        const secure = await request(app)
          .get("/x")
          .set("X-Forwarded-For", "203.0.113.5")
          .set("X-Forwarded-Proto", "https");
        expect(secure.status).toBe(402);
        expect(facilitator.count("verify")).toBe(verifiesBefore);
      },
    );
  });

  describe("options are checked at start-up", () => {
    const base = {
      facilitator: { url: "https://facilitator.test" },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: {},
    };
    it.each([
      [{ ...base, facilitator: { url: "not a url" } }, /facilitator/],
      [{ ...base, payTo: undefined, routes: { "GET /x": { price: "$1" } } }, /routes\["GET \/x"\].*no payTo/],
      [{ ...base, network: "base" }, /network: expected a CAIP-2/],
      [{ ...base, routes: { "GET /x": { price: "ten dollars" } } }, /routes\["GET \/x"\]\.price/],
      [{ ...base, routes: { "GET /x": {} } }, /routes\["GET \/x"\].*price/],
      [{ ...base, routes: { "GET /x": { price: "$1", colour: "red" } } }, /colour/],
      [
        { ...base, routes: { "GET /x": { price: "$0.0000001" } } },
        /routes\["GET \/x"\]\.price: .*decimal places/,
      ],
      [{ ...base, maxHeldResponseBytes: -1 }, /maxHeldResponseBytes/],
    ])("%#: a wrong option throws, naming the key", async (options, message) => {
      // Fastify registers a plugin at `ready`: its options are refused there, naming the key all the same.
      await expect((async () => adapter.paywall(options as never).ready?.())()).rejects.toThrow(message);
    });
  });

  describe("a ledger failure after settlement", () => {
    it("still serves the paid response: the money has moved", async () => {
      const facilitatorForLedger = await startFacilitatorDouble();
      const memory = new MemoryPaymentLedger();
      const failingSpend = {
        reserve: memory.reserve.bind(memory),
        release: memory.release.bind(memory),
        spend: async () => {
          throw new Error("ledger store is down");
        },
      };
      const paidApp = adapter.app(
        {
          facilitator: { url: facilitatorForLedger.url },
          payTo: PAY_TO,
          network: "eip155:84532",
          ledger: failingSpend,
          routes: { "GET /x": { price: "$0.001" } },
        },
        { "GET /x": (_req, res) => sendJson(res, 200, { served: true }) },
      );
      try {
        const res = await request(paidApp)
          .get("/x")
          .set("PAYMENT-SIGNATURE", header(evmPayment(APY)));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ served: true });
        expect(facilitatorForLedger.count("settle")).toBe(1);
      } finally {
        await facilitatorForLedger.close();
      }
    });
  });
});
