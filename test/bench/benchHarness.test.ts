import { afterAll, describe, expect, it } from "vitest";
import { verifyTypedData, type Hex } from "viem";
import { createCborPayment } from "../../src/payer/createCborPayment.js";
import { CBOR_MEDIA_TYPE } from "../../src/protocol/cbor/profile.js";
import {
  benchCborPayer,
  contenders,
  paymentHeader,
  ROUTE,
  UPSTREAM_BODY,
  type ContenderName,
  type ContenderOptions,
  type RunningContender,
  type SignedPayload,
  type SignedSvmPayload,
} from "../../bench/contenders.js";
import { load, startServer } from "../../bench/measure.js";
import { CHAIN_ID, signPayments, TOKEN } from "../../bench/paymentPool.js";
import { benchSolanaChain, signSvmPayments } from "../../bench/svmPaymentPool.js";
import { AUTHORIZATION_FIELDS } from "../../src/dev/signTransferAuthorization.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { paymentRequiredSchema, type PaymentRequired } from "../../src/protocol/schemas.js";

// The bench's own set-up, run briefly so it cannot rot unnoticed; no timing is asserted here.
const running: RunningContender[] = [];
afterAll(async () => {
  for (const contender of running.reverse()) await contender.close();
});

async function start(
  name: ContenderName,
  upstreamUrl?: string,
  options: Omit<ContenderOptions, "upstreamUrl" | "log"> = {},
): Promise<string> {
  const contender = await contenders[name]({ upstreamUrl, log: "silent", ...options });
  running.push(contender);
  return contender.url;
}

async function offerFrom(url: string): Promise<PaymentRequired> {
  const response = await fetch(url + ROUTE);
  expect(response.status).toBe(402);
  const header = response.headers.get("payment-required");
  expect(header).not.toBeNull();
  return paymentRequiredSchema.parse(decodeBase64Json(header as string));
}

describe("bench harness", () => {
  let payments: SignedPayload[];

  it("pre-signs distinct payments whose EIP-3009 signatures verify", async () => {
    payments = await signPayments(4);
    expect(new Set(payments.map((p) => p.authorization.nonce)).size).toBe(4);
    const [first] = payments as [SignedPayload];
    const { authorization } = first;
    const valid = await verifyTypedData({
      address: authorization.from as Hex,
      domain: {
        name: TOKEN.name,
        version: TOKEN.version,
        chainId: CHAIN_ID,
        verifyingContract: TOKEN.address,
      },
      types: {
        TransferWithAuthorization: AUTHORIZATION_FIELDS,
      },
      primaryType: "TransferWithAuthorization",
      message: {
        from: authorization.from as Hex,
        to: authorization.to as Hex,
        value: BigInt(authorization.value as string),
        validAfter: BigInt(authorization.validAfter as string),
        validBefore: BigInt(authorization.validBefore as string),
        nonce: authorization.nonce as Hex,
      },
      signature: first.signature as Hex,
    });
    expect(valid).toBe(true);
  });

  it.each([
    "bare-http-402",
    "bare-express-402",
    "express-middleware-402",
    "bare-hono-402",
    "official",
    "x402",
    "gateway",
    "official-hono",
    "x402-hono",
  ] as const)("%s answers the priced route with a 402 and a valid PAYMENT-REQUIRED", async (name) => {
    const offer = await offerFrom(await start(name));
    expect(offer.accepts[0]).toMatchObject({ network: "eip155:84532", amount: "1000" });
  });

  it.each(["official", "x402", "gateway"] as const)(
    "%s answers a paid request 200 with the handler's body and a PAYMENT-RESPONSE",
    async (name) => {
      const upstreamUrl = await start("upstream");
      const url = await start(name, upstreamUrl);
      const offer = await offerFrom(url);
      const index = ["official", "x402", "gateway"].indexOf(name);
      const paid = await fetch(url + ROUTE, {
        headers: { "payment-signature": paymentHeader(offer, payments[index] as SignedPayload) },
      });
      expect(paid.status).toBe(200);
      expect(await paid.text()).toBe(UPSTREAM_BODY);
      expect(paid.headers.get("payment-response")).not.toBeNull();
    },
  );

  it.each([
    ["official", { redis: false }],
    ["bare-http-paid", { redis: false }],
    ["x402", { redis: false }],
    ["gateway", { redis: false }],
    ["x402", { redis: true }],
    ["gateway", { redis: true }],
    ["official-hono", { redis: false }],
    ["x402-hono", { redis: false }],
  ] as const)(
    "%s %o pays through the instant facilitator over HTTP (scenarios 11, 13), and refuses the same payment twice",
    async (name, { redis }) => {
      const facilitatorUrl = await start("facilitator");
      const upstreamUrl = await start("upstream");
      const redisUrl = redis ? (process.env.REDIS_URL ?? "redis://127.0.0.1:6379") : undefined;
      const url = await start(name, upstreamUrl, { facilitatorUrl, ...(redisUrl ? { redisUrl } : {}) });
      const header = paymentHeader(await offerFrom(url), payments[3] as SignedPayload);
      const paid = await fetch(url + ROUTE, { headers: { "payment-signature": header } });
      expect(paid.status).toBe(200);
      expect(await paid.text()).toBe(UPSTREAM_BODY);
      expect(paid.headers.get("payment-response")).not.toBeNull();
      // The officials and Node's floor keep no ledger: their facilitator refuses replays.
      if (name === "official" || name === "official-hono" || name === "bare-http-paid") return;
      const again = await fetch(url + ROUTE, { headers: { "payment-signature": header } });
      expect(again.status).not.toBe(200);
      await again.arrayBuffer();
    },
  );

  it.each(["x402", "gateway"] as const)(
    "%s pays a CBOR intent as scenario 12 sends it (POST retry), and refuses it twice",
    async (name) => {
      const cborFacilitatorUrl = await start("cbor-facilitator");
      const facilitatorUrl = await start("facilitator");
      const upstreamUrl = await start("upstream");
      const url = await start(name, upstreamUrl, { facilitatorUrl, cborFacilitatorUrl });
      const accept = `${CBOR_MEDIA_TYPE}, application/json;q=0.5`;
      const offered = await fetch(url + ROUTE, { headers: { accept } });
      expect(offered.status).toBe(402);
      await offered.arrayBuffer();
      const offer = offered.headers.get("payment-required") as string;
      const { header } = createCborPayment({ offer, key: benchCborPayer() });
      const retry = () =>
        fetch(url + ROUTE, {
          method: "POST",
          headers: { accept, "content-type": CBOR_MEDIA_TYPE, "payment-signature": header },
        });
      const paid = await retry();
      expect(paid.status).toBe(200);
      expect(await paid.text()).toBe(UPSTREAM_BODY);
      const again = await retry();
      expect(again.status).not.toBe(200);
      await again.arrayBuffer();
    },
  );

  it.each(["official", "x402", "gateway"] as const)(
    "%s pays a distinct official @x402/svm transaction on Solana as scenario 15 sends it, and refuses it twice",
    async (name) => {
      const solana = await benchSolanaChain();
      const facilitatorUrl = await start("facilitator", undefined, { solana });
      const upstreamUrl = await start("upstream");
      const url = await start(name, upstreamUrl, { facilitatorUrl, solana });
      const offer = await offerFrom(url);
      expect(offer.accepts[0]).toMatchObject({
        network: solana.network,
        payTo: solana.payTo,
        amount: "1000",
        extra: { feePayer: solana.feePayer },
      });
      const signed = await signSvmPayments(2);
      expect(new Set(signed.map((payment) => payment.transaction)).size).toBe(2);
      const header = paymentHeader(offer, signed[0] as SignedSvmPayload);
      const paid = await fetch(url + ROUTE, { headers: { "payment-signature": header } });
      expect(paid.status).toBe(200);
      expect(await paid.text()).toBe(UPSTREAM_BODY);
      expect(paid.headers.get("payment-response")).not.toBeNull();
      if (name === "official") return; // the official keeps no ledger: its facilitator refuses replays
      const again = await fetch(url + ROUTE, { headers: { "payment-signature": header } });
      expect(again.status).not.toBe(200);
      await again.arrayBuffer();
      // Another transaction of the pool is another payment.
      const other = paymentHeader(offer, signed[1] as SignedSvmPayload);
      const second = await fetch(url + ROUTE, { headers: { "payment-signature": other } });
      expect(second.status).toBe(200);
      await second.arrayBuffer();
    },
    60_000,
  );

  it("the proxy floor and the gateway forward a free path to the upstream", async () => {
    const upstreamUrl = await start("upstream");
    for (const name of ["express-hpm", "gateway"] as const) {
      const response = await fetch(`${await start(name, upstreamUrl)}/free/hello`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(UPSTREAM_BODY);
    }
  });

  it("runs a contender in its own process and loads it, every answer the expected one", async () => {
    const server = await startServer("x402");
    try {
      const result = await load({
        url: server.url + ROUTE,
        connections: 2,
        seconds: 1,
        expectStatus: 402,
      });
      expect(result.total).toBeGreaterThan(0);
      expect(result.wrong).toBe(0);
      expect(await server.peakRss()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
