import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeErrorBody } from "../../src/protocol/cbor/ErrorBody.js";
import { decodePaymentRequest } from "../../src/protocol/cbor/PaymentRequest.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { CBOR, cborRefusal, fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";
import { rawRequest } from "../support/rawRequest.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";

// The seed's rules for a CBOR client, on x402(), x402Node() and the gateway alike: step 1 is a bare GET,
// no JSON plaintext reaches a client that asked for CBOR, and a payment type nobody speaks is 415
// wherever it is sent. Nothing here reaches a facilitator: every refusal is the gateway's own.
const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const key = createSigningKey("ed25519");
let clockOffsetMs = 0;
const now = () => Date.now() + clockOffsetMs;

describe.each(CBOR_TARGET_KINDS)("seed rules for CBOR clients under %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(
      kind,
      {
        facilitator: { url: "http://127.0.0.1:9" },
        cbor: { merchantPseudonym: "merchant:seed-rules", facilitator: { url: "http://127.0.0.1:9" } },
        payTo: PAY_TO,
        network: "eip155:84532",
        routes: {
          "GET /cbor-only": { cbor: { currency: "USDC", amount: "1000" } },
          "GET /both": { price: "$0.01", cbor: { currency: "USDC", amount: "1000" } },
          "GET /json-only": { price: "$0.01" },
        },
      },
      now,
    );
  });
  afterAll(() => target?.stop());

  it("step 1: a GET with no headers at all gets the CBOR PaymentRequest from a CBOR-only route", async () => {
    const response = await rawRequest(`${target.url}/cbor-only`);
    expect(response.status).toBe(402);
    expect(response.headers["content-type"]).toBe(CBOR);
    const request = decodePaymentRequest(new Uint8Array(response.body));
    expect(request.serviceId).toBe("GET /cbor-only");
    expect(Buffer.from(decodeBase64(response.headers["payment-required"] as string))).toEqual(response.body);
    // A route that also offers JSON keeps the x402 V2 default for a client that names nothing.
    const both = await rawRequest(`${target.url}/both`);
    expect([both.status, both.headers["content-type"]]).toEqual([402, "application/json; charset=utf-8"]);
  });

  it("a 400 to a CBOR client is a canonical CBOR { error, reason, details } body, not JSON", async () => {
    const response = await postCborPayment(`${target.url}/both`, "%%%");
    expect(response.status).toBe(400);
    const body = await cborRefusal(response);
    expect(body.error).toBe("invalid_payment");
    expect(body.reason).toMatch(/not base64/);
    expect(body.details.get("stage")).toBe("base64");
    // The same refusal to a JSON client stays the flat JSON body.
    const json = await fetch(`${target.url}/both`, { headers: { "payment-signature": "%%%" } });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe("invalid_payment");
  });

  it("a 415 to a CBOR client is CBOR: a CBOR payment on a JSON-only route, an unknown type with Accept CBOR", async () => {
    const onJsonRoute = await fetch(`${target.url}/json-only`, {
      headers: { "content-type": CBOR, "payment-signature": "AAAA" },
    });
    expect(onJsonRoute.status).toBe(415);
    expect(await cborRefusal(onJsonRoute)).toMatchObject({ error: "unsupported_media_type" });
    const unknown = await fetch(`${target.url}/both`, {
      headers: { accept: CBOR, "content-type": "application/x402+json", "payment-signature": "AAAA" },
    });
    expect(unknown.status).toBe(415);
    const body = await cborRefusal(unknown);
    expect(body.reason).toMatch(/application\/x402\+json is not supported/);
    expect(body.details.get("mediaType")).toBe("application/x402+json");
  });

  it("a CBOR-only route refuses in CBOR even a client that named no format", async () => {
    const response = await rawRequest(`${target.url}/cbor-only`, {
      headers: { "content-type": "application/x402+json", "payment-signature": "AAAA" },
    });
    expect(response.status).toBe(415);
    expect(response.headers["content-type"]).toBe(CBOR);
    expect(decodeErrorBody(new Uint8Array(response.body)).error).toBe("unsupported_media_type");
  });

  it("a deadline refusal says why: X402-Error-Reason beside X402-Error, the body still the fresh offer", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/cbor-only`);
    const header = signedIntent(offer, key, {}, { time: Math.floor(now() / 1000) });
    clockOffsetMs += 10 * 60_000;
    try {
      const expired = await postCborPayment(`${target.url}/cbor-only`, header);
      expect(expired.status).toBe(402);
      expect(expired.headers.get("x402-error")).toBe("payment_mismatch");
      expect(expired.headers.get("x402-error-reason")).toMatch(/has expired: fetch a new offer/);
      expect(decodePaymentRequest(new Uint8Array(await expired.arrayBuffer())).serviceId).toBe(
        "GET /cbor-only",
      );
    } finally {
      clockOffsetMs -= 10 * 60_000;
    }
  });

  it("a POST with a body in an unknown application/x402+… type is 415 on a free path too; the upstream never sees it", async () => {
    const types = [
      "application/x402+json",
      "APPLICATION/X402+FOO; v=1",
      "application/x402",
      "application/x402+cbor, text/plain",
    ];
    for (const type of types) {
      const before = target.served("/free");
      const response = await rawRequest(`${target.url}/free`, {
        method: "POST",
        headers: { "content-type": type, "content-length": "2" },
        body: "{}",
      });
      expect(response.status, type).toBe(415);
      expect(JSON.parse(response.body.toString("utf8"))).toMatchObject({ error: "unsupported_media_type" });
      expect(target.served("/free"), type).toBe(before);
    }
    // A CBOR client gets it in CBOR.
    const cbor = await rawRequest(`${target.url}/free`, {
      method: "PUT",
      headers: { accept: CBOR, "content-type": "application/x402+foo", "content-length": "2" },
      body: "{}",
    });
    expect([cbor.status, decodeErrorBody(new Uint8Array(cbor.body)).error]).toEqual([
      415,
      "unsupported_media_type",
    ]);
  });

  it("what is not an unknown payment type still reaches a free path: CBOR bodies, other types, body-less requests", async () => {
    const cases: Array<[string, Record<string, string>, string | undefined]> = [
      ["CBOR body", { "content-type": "application/x402+cbor; charset=binary", "content-length": "2" }, "{}"],
      ["JSON body", { "content-type": "application/json", "content-length": "2" }, "{}"],
      [
        "x402-looking vendor type",
        { "content-type": "application/vnd.x402+json", "content-length": "2" },
        "{}",
      ],
      ["no body", { "content-type": "application/x402+foo" }, undefined],
    ];
    for (const [name, headers, body] of cases) {
      const before = target.served("/free");
      const response = await rawRequest(`${target.url}/free`, {
        method: "POST",
        headers,
        ...(body ? { body } : {}),
      });
      expect(response.status, name).toBe(200);
      expect(target.served("/free"), name).toBe(before + 1);
    }
  });
});
