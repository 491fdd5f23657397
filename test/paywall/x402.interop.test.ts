import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
} from "@x402/core/http";
import { PaymentPayloadV2Schema, PaymentRequiredV2Schema } from "@x402/core/schemas";
import type { PaymentRequired as OfficialPaymentRequired } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402, type PaymentRequired } from "../../src/index.js";
import { decodePaymentHeader } from "../../src/paywall/wires/decodePaymentHeader.js";
import { matchRequirements } from "../../src/paywall/request/matchRequirements.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, usdcRequirements } from "../support/payments.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";

// A public test key (anvil's first dev account); it signs, nothing is ever sent to a chain here.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

let facilitator: FacilitatorDouble;
let server: LoopbackServer;
let baseUrl: string;
const routes = {
  "GET /api/apy": { price: "$0.001", description: "Current APY" },
  "POST /api/stake": {
    price: "$0.01",
    accepts: [{ scheme: "exact" as const, network: "eip155:8453", price: "$0.01" }],
  },
};

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  const app = express();
  app.use(x402({ facilitator: { url: facilitator.url }, payTo: PAY_TO, network: "eip155:84532", routes }));
  app.use(express.json());
  app.get("/api/apy", (_req, res) => res.json({ apy: "5.25" }));
  app.post("/api/stake", (req, res) => res.json({ ok: true, body: req.body as unknown }));
  server = await listenOnLoopback(app);
  baseUrl = server.url;
});

afterAll(async () => {
  await server.close();
  await facilitator.close();
});

/** The official client, recording every PAYMENT-SIGNATURE it sends. */
function officialClient(): { pay: ReturnType<typeof wrapFetchWithPayment>; sent: string[] } {
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const signature = request.headers.get("payment-signature");
    if (signature) sent.push(signature);
    return fetch(request);
  };
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  return { pay: wrapFetchWithPayment(recording, client), sent };
}

describe("what we encode, the official packages read", () => {
  it("PAYMENT-REQUIRED decodes with @x402/core and validates against its V2 schema and types", async () => {
    const res = await fetch(`${baseUrl}/api/apy`);
    expect(res.status).toBe(402);
    const value = res.headers.get("payment-required") ?? "";
    const official = decodePaymentRequiredHeader(value);
    expect(PaymentRequiredV2Schema.safeParse(official).success).toBe(true);
    const ours: PaymentRequired = (await res.json()) as PaymentRequired;
    // Our type is assignable to theirs: a compile-time check that fails the typecheck if they drift.
    const typed: OfficialPaymentRequired = { ...ours, error: ours.error ?? "" } as OfficialPaymentRequired;
    expect(official).toEqual({
      x402Version: 2,
      error: typed.error,
      resource: ours.resource,
      accepts: ours.accepts,
    });
    expect(official.accepts).toEqual([usdcRequirements("1000")]);
  });
});

describe("what the official client sends, we accept", () => {
  it("pays a priced GET: our decoder and matcher accept its PAYMENT-SIGNATURE, and its decoder reads our receipt", async () => {
    const { pay, sent } = officialClient();
    const res = await pay(`${baseUrl}/api/apy`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ apy: "5.25" });
    expect(sent).toHaveLength(1);
    const theirs = decodePaymentSignatureHeader(sent[0] as string);
    const ours = decodePaymentHeader(sent[0] as string);
    expect(PaymentPayloadV2Schema.safeParse(ours).success).toBe(true);
    expect(ours).toEqual(JSON.parse(JSON.stringify(theirs)));
    expect(matchRequirements([usdcRequirements("1000")], ours)).toMatchObject({ ok: true });
    expect((ours.payload as { authorization: { from: string } }).authorization.from.toLowerCase()).toBe(
      account.address.toLowerCase(),
    );
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response") ?? "");
    expect(receipt).toMatchObject({ success: true, transaction: `0x${"ab".repeat(32)}` });
  });

  it("pays a priced POST, choosing among several options", async () => {
    const { pay, sent } = officialClient();
    const res = await pay(`${baseUrl}/api/stake`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: "1" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, body: { amount: "1" } });
    const payment = decodePaymentHeader(sent[0] as string);
    expect(["eip155:84532", "eip155:8453"]).toContain(payment.accepted.network);
    expect(payment.accepted.amount).toBe("10000");
  });
});
