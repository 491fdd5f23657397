import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { decodeErrorBody } from "../../src/protocol/cbor/ErrorBody.js";
import {
  decodeCborSettleResponse,
  decodeCborSettlementStatus,
  encodeCborSettleResponse,
  encodeCborSettlementStatus,
} from "../../src/protocol/cbor/facilitatorMessages.js";
import { decodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { CBOR, signedIntent } from "../support/cborClient.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";
import { startDelayingFacilitator, type DelayingFacilitator } from "../support/delayingFacilitator.js";

/**
 * The receipt a CBOR facilitator answers (from `/settle` or its status call) must be about the payment
 * being settled: its claim `was_paid`, the same quantity, its context the SHA-256 of this intent. A
 * receipt of another payment (here a real one, signed by the facilitator) is the facilitator's fault
 * and money may have moved: never a 2xx with it, the payment kept reserved (`settlement_unknown`) until
 * the facilitator answers this payment's own receipt.
 */

const PRICE = 10_000n;
const MERCHANT = "merchant:receipt-binding";
const key = createSigningKey("ed25519");
let tick = 0;

let facilitator: RunningCborFacilitator;
let faults: DelayingFacilitator;

beforeAll(async () => {
  facilitator = await startCborFacilitator({
    accounts: [{ publicKey: key.publicKey, balances: { USDC: 100n * PRICE } }],
  });
  faults = await startDelayingFacilitator(facilitator.url);
});

afterAll(async () => {
  await faults?.close();
  await facilitator?.stop();
});

const payerBalance = () => facilitator.payerBalance(key.publicKey, "USDC") ?? 0n;

/** The facilitator's answers to `paths`, with `receipt` in place of the one it issued. */
function answerReceipt(receipt: Uint8Array, paths: Array<"settle" | "status">) {
  return (path: string, reply: Buffer): Buffer => {
    if (path === "/settle" && paths.includes("settle")) {
      const settled = decodeCborSettleResponse(reply);
      if (settled.success) return Buffer.from(encodeCborSettleResponse({ ...settled, receipt }));
    }
    if (path.startsWith("/settlements/") && paths.includes("status")) {
      if (decodeCborSettlementStatus(reply).settled) {
        return Buffer.from(encodeCborSettlementStatus({ settled: true, receipt }));
      }
    }
    return reply;
  };
}

/** The receipt verifies and its context is the SHA-256 of the intent of `header`. */
function isReceiptOf(receiptHeader: string | null, header: string): boolean {
  if (receiptHeader === null) return false;
  const verdict = verifyReceipt(decodeBase64(receiptHeader), facilitator.receiptKey);
  if (!verdict.valid) return false;
  const intent = decodePaymentSignature(decodeBase64(header)).paymentIntent;
  const digest = createHash("sha256").update(intent).digest();
  return Buffer.from(verdict.claim.context).equals(digest);
}

describe.each(CBOR_TARGET_KINDS)("a CBOR facilitator's receipt of another payment, through %s", (kind) => {
  let target: CborTarget;
  let stale: Uint8Array;

  beforeAll(async () => {
    target = await startCborTarget(
      kind,
      {
        facilitator: { url: faults.url },
        payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        network: "eip155:31337",
        cbor: {
          merchantPseudonym: MERCHANT,
          facilitator: { url: faults.url, timeoutMs: 2_000, settleTimeoutMs: 2_000 },
        },
        settlementCheckTimeoutMs: 500,
        routes: { "GET /quote": { cbor: { currency: "USDC", amount: PRICE.toString() } } },
      },
      Date.now,
    );
    faults.rewrite = undefined;
    const header = await sign();
    const paid = await send(header);
    expect(paid.status).toBe(200);
    const receipt = paid.headers.get("payment-response");
    expect(isReceiptOf(receipt, header)).toBe(true);
    stale = decodeBase64(receipt ?? "");
  });
  afterAll(async () => {
    faults.rewrite = undefined;
    await target?.stop();
  });

  const sign = async () => {
    const offer = await fetch(`${target.url}/quote`, { headers: { accept: CBOR } });
    const header = offer.headers.get("payment-required");
    if (header === null) throw new Error("no CBOR offer");
    return signedIntent(decodeBase64(header), key, {}, { time: Math.floor(Date.now() / 1000) + tick++ });
  };
  const send = (header: string) =>
    fetch(`${target.url}/quote`, {
      headers: { "content-type": CBOR, accept: CBOR, "payment-signature": header },
    });

  it("from /settle: not served with it; the status call's own receipt is served, charged once", async () => {
    faults.rewrite = answerReceipt(stale, ["settle"]);
    const header = await sign();
    const before = payerBalance();
    const response = await send(header);
    faults.rewrite = undefined;
    expect(response.status).toBe(200);
    expect(isReceiptOf(response.headers.get("payment-response"), header)).toBe(true);
    expect(before - payerBalance()).toBe(PRICE);
  });

  it("from /settle and the status call: 503 settlement_unknown (money moved), the retry gets its own receipt", async () => {
    faults.rewrite = answerReceipt(stale, ["settle", "status"]);
    const header = await sign();
    const before = payerBalance();
    const response = await send(header);
    expect(response.status).toBe(503);
    expect(response.headers.get("payment-response")).toBeNull();
    expect(decodeErrorBody(new Uint8Array(await response.arrayBuffer())).error).toBe("settlement_unknown");
    expect(before - payerBalance()).toBe(PRICE);

    const stillWrong = await send(header);
    expect(stillWrong.status).toBe(503);
    expect(stillWrong.headers.get("payment-response")).toBeNull();

    faults.rewrite = undefined;
    const retry = await send(header);
    expect(retry.status).toBe(200);
    expect(isReceiptOf(retry.headers.get("payment-response"), header)).toBe(true);
    expect(before - payerBalance()).toBe(PRICE);
  });
});
