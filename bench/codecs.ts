// Size and speed of the two payment formats for one route: base64 JSON (x402 V2) vs application/x402+cbor.
// `npx tsx bench/codecs.ts` prints a table; `compareCodecs()` returns the same figures for the bench suite.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { decodePaymentHeader } from "../src/paywall/wires/decodePaymentHeader.js";
import { createCborPayment } from "../src/payer/createCborPayment.js";
import { issueCborRequest } from "../src/pricing/cborPaymentRequests.js";
import { resolveCborOffer } from "../src/pricing/resolveCborOffer.js";
import { decodeBase64 } from "../src/protocol/decodeBase64.js";
import { decodeBase64Json, encodeBase64Json } from "../src/protocol/base64Json.js";
import { decodePaymentRequest } from "../src/protocol/cbor/PaymentRequest.js";
import { decodePaymentSignature, encodePaymentSignature } from "../src/protocol/cbor/PaymentSignature.js";
import { decodeClaim } from "../src/protocol/cbor/Claim.js";
import { createSigningKey, type SignatureAlgorithm } from "../src/protocol/cbor/signatures.js";
import type { PaymentPayload, PaymentRequired } from "../src/protocol/schemas.js";

export interface CodecFigures {
  /** Header value lengths (base64), in bytes. */
  offerJson: number;
  offerCbor: number;
  /** CBOR offer / JSON offer. */
  offerRatio: number;
  paymentJson: number;
  paymentCborEd25519: number;
  paymentCborMlDsa65: number;
  /** Operations per second: encode = object → header value; decode = header value → checked object. */
  opsPerSecond: Record<
    | "offerJsonEncode"
    | "offerJsonDecode"
    | "offerCborEncode"
    | "offerCborDecode"
    | "paymentJsonEncode"
    | "paymentJsonDecode"
    | "paymentCborEncode"
    | "paymentCborDecode",
    number
  >;
}

const NOW = Date.parse("2026-11-23T14:00:00Z");

/** The same route, `GET /api/apy` at 0.001 USDC, offered in each format. */
function fixtures() {
  const offerJson: PaymentRequired = {
    x402Version: 2,
    error: "payment_required",
    resource: {
      url: "https://api.example.com/api/apy",
      description: "Staking APR",
      mimeType: "application/json",
    },
    accepts: [
      {
        scheme: "exact",
        network: "eip155:8453",
        amount: "1000",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        maxTimeoutSeconds: 300,
        extra: { name: "USD Coin", version: "2" },
      },
    ],
  };
  const cborOffer = resolveCborOffer(
    "GET /api/apy",
    { currency: "USDC", amount: "1000", merchantPseudonym: "merchant:x402-demo" },
    { deadlineSeconds: 300 },
  );
  const paymentJson: PaymentPayload = {
    x402Version: 2,
    accepted: offerJson.accepts[0]!,
    payload: {
      signature: `0x${randomBytes(65).toString("hex")}`,
      authorization: {
        from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        to: offerJson.accepts[0]!.payTo,
        value: "1000",
        validAfter: String(NOW / 1000 - 60),
        validBefore: String(NOW / 1000 + 300),
        nonce: `0x${randomBytes(32).toString("hex")}`,
      },
    },
  };
  return { offerJson, cborOffer, paymentJson };
}

function opsPerSecond(run: () => unknown, minMs = 300): number {
  for (let i = 0; i < 200; i++) run();
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < 100; i++) run();
    count += 100;
    elapsed = performance.now() - started;
  }
  return Math.round((count * 1000) / elapsed);
}

export function compareCodecs(options: { minMs?: number } = {}): CodecFigures {
  const { offerJson, cborOffer, paymentJson } = fixtures();
  const offerJsonHeader = encodeBase64Json(offerJson);
  const issued = issueCborRequest(cborOffer, NOW);
  const offerCborHeader = Buffer.from(issued.bytes).toString("base64");
  const pay = (algorithm: SignatureAlgorithm) =>
    createCborPayment({ offer: issued.bytes, key: createSigningKey(algorithm), now: () => NOW }).header;
  const paymentCborHeader = pay("ed25519");
  const paymentCbor = decodePaymentSignature(decodeBase64(paymentCborHeader));
  const paymentJsonHeader = encodeBase64Json(paymentJson);
  const minMs = options.minMs ?? 300;
  return {
    offerJson: offerJsonHeader.length,
    offerCbor: offerCborHeader.length,
    offerRatio: Number((offerCborHeader.length / offerJsonHeader.length).toFixed(3)),
    paymentJson: paymentJsonHeader.length,
    paymentCborEd25519: paymentCborHeader.length,
    paymentCborMlDsa65: pay("ml-dsa-65").length,
    opsPerSecond: {
      offerJsonEncode: opsPerSecond(() => encodeBase64Json(offerJson), minMs),
      offerJsonDecode: opsPerSecond(() => decodeBase64Json(offerJsonHeader), minMs),
      offerCborEncode: opsPerSecond(
        () => Buffer.from(issueCborRequest(cborOffer, NOW).bytes).toString("base64"),
        minMs,
      ),
      offerCborDecode: opsPerSecond(() => decodePaymentRequest(decodeBase64(offerCborHeader)), minMs),
      paymentJsonEncode: opsPerSecond(() => encodeBase64Json(paymentJson), minMs),
      paymentJsonDecode: opsPerSecond(() => decodePaymentHeader(paymentJsonHeader), minMs),
      paymentCborEncode: opsPerSecond(
        () => Buffer.from(encodePaymentSignature(paymentCbor)).toString("base64"),
        minMs,
      ),
      paymentCborDecode: opsPerSecond(
        () => decodeClaim(decodePaymentSignature(decodeBase64(paymentCborHeader)).paymentIntent),
        minMs,
      ),
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const figures = compareCodecs();
  console.log("header bytes (base64)        JSON    CBOR");
  console.log(
    `  offer (GET /api/apy)     ${String(figures.offerJson).padStart(6)}  ${String(figures.offerCbor).padStart(6)}   CBOR/JSON = ${figures.offerRatio} (target ≤ 0.75)`,
  );
  console.log(`  payment (EVM exact)      ${String(figures.paymentJson).padStart(6)}`);
  console.log(`  payment (Ed25519 intent)         ${String(figures.paymentCborEd25519).padStart(6)}`);
  console.log(`  payment (ML-DSA-65 intent)       ${String(figures.paymentCborMlDsa65).padStart(6)}`);
  console.log("ops/s");
  for (const [name, value] of Object.entries(figures.opsPerSecond))
    console.log(`  ${name.padEnd(20)} ${value}`);
}
