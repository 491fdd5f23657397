import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { createCborPayment, createMaskedCborPayment } from "../../src/payer/createCborPayment.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import type { CborValue } from "../../src/protocol/cbor/CborValue.js";
import { decodeCanonical } from "../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../src/protocol/cbor/encodeCanonical.js";
import { decodeMaskDocument } from "../../src/protocol/cbor/masks/RevelationMask.js";
import { decodePaymentRequest } from "../../src/protocol/cbor/PaymentRequest.js";
import { decodePaymentSignature, encodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { standInProof } from "../../src/protocol/cbor/standInProof.js";
import { openRestrictedReceipt } from "../../src/protocol/cbor/verifyRestrictedReceipt.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { fetchCborOffer, postCborPayment } from "../support/cborClient.js";
import {
  CBOR_TARGET_KINDS,
  startCborTarget,
  type CborTarget,
  type CborTargetSettings,
} from "../support/cborTargets.js";

const MERCHANT = "merchant:masked";
const PRICE = 900n;
const payer = createSigningKey("ed25519");
const now = () => Date.now();
/** One intent per second per key and offer: step the intent's time so each payment is new. */
let tick = 0;
const time = () => (Math.floor(now() / 1000) + tick++) * 1000;

let facilitator: RunningCborFacilitator;
beforeAll(async () => {
  facilitator = await startCborFacilitator({
    now,
    accounts: [{ publicKey: payer.publicKey, balances: { USDC: 1_000_000n } }],
  });
});
afterAll(async () => facilitator?.stop());

const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
const ROUTES: CborTargetSettings["routes"] = {
  "GET /commit": {
    cbor: { ...cbor, revelationMask: { intent: { subject: "Commit" }, receipt: { subject: "Commit" } } },
  },
  "GET /sealed": {
    cbor: {
      ...cbor,
      revelationMask: { intent: { subject: "Encrypted", time: "ZK" }, receipt: { subject: "Commit" } },
    },
  },
  "GET /open": { cbor },
  "GET /gated": {
    cbor: {
      ...cbor,
      acceptsHumanityGate: true,
      humanityIssuers: ["ab".repeat(32)],
      revelationMask: { intent: { time: "Commit" } },
    },
  },
  "GET /layer-two": {
    cbor: {
      ...cbor,
      signers: ["LayerTwoSigner"],
      revelationMask: { intent: { time: "Commit" } },
    },
  },
};

function settings() {
  return {
    facilitator: { url: facilitator.url },
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:31337" as const,
    routes: ROUTES,
  };
}

/** Re-sign a payment after `mutate` changed its intent's parts (each part's CBOR value, in order). */
function tampered(header: string, mutate: (parts: CborValue[]) => void, options: { resign?: boolean } = {}) {
  const payment = decodePaymentSignature(decodeBase64(header));
  const parts = decodeCanonical(payment.paymentIntent, { expect: "array" });
  mutate(parts);
  const paymentIntent = encodeCanonical(parts);
  const bytes = encodePaymentSignature({
    ...payment,
    paymentIntent,
    starkProof: standInProof(paymentIntent),
    // A hidden payer's signature is sealed in the openings (it no longer matches: the facilitator's
    // mask checks come first); one in clear is re-signed unless told.
    signature:
      payment.signature === undefined || options.resign === false
        ? payment.signature
        : payer.sign(paymentIntent),
  });
  return Buffer.from(bytes).toString("base64");
}

function flipLast(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice();
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 1;
  return copy;
}

describe.each(CBOR_TARGET_KINDS)("revelation masks through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, settings(), now);
  });
  afterAll(async () => target?.stop());

  const books = () => ({
    payer: facilitator.payerBalance(payer.publicKey, "USDC"),
    merchant: facilitator.merchantBalance(MERCHANT, "USDC"),
    settlements: facilitator.book.settlements(),
  });

  async function masked(path: string) {
    const { response, offer } = await fetchCborOffer(`${target.url}${path}`);
    const mask = response.headers.get("x402-revelation-mask") ?? undefined;
    return createMaskedCborPayment({
      offer,
      key: payer,
      now: time,
      mask,
      facilitatorHpkeKey: facilitator.hpkeKey,
    });
  }

  /** Posts `header` to `path`: refused with `code` (402), nothing settled, served or moved. */
  async function expectRefused(path: string, header: string, code: string, reason?: RegExp) {
    const before = books();
    const served = target.served(path);
    const response = await postCborPayment(`${target.url}${path}`, header);
    await response.arrayBuffer();
    expect(response.status).toBe(402);
    expect(response.headers.get("x402-error")).toBe(code);
    if (reason) expect(response.headers.get("x402-error-reason")).toMatch(reason);
    expect(books()).toEqual(before);
    expect(target.served(path)).toBe(served);
  }

  it("the offer names its mask by digest and carries the document; the default route carries none", async () => {
    const { response, offer } = await fetchCborOffer(`${target.url}/commit`);
    const document = decodeBase64(response.headers.get("x402-revelation-mask")!);
    const digest = createHash("sha256").update(document).digest("hex");
    expect(decodePaymentRequest(offer).revelationMaskRef).toBe(`mask:v0.3:sha256:${digest}`);
    expect(decodeMaskDocument(document).intent.subject).toBe("Commit");
    const open = await fetchCborOffer(`${target.url}/open`);
    expect(open.response.headers.get("x402-revelation-mask")).toBeNull();
    expect(decodePaymentRequest(open.offer).revelationMaskRef).toBe("mask:v0.3:open-fields");
  });

  it.each(["/commit", "/sealed"])(
    "%s: a masked payment pays once; the receipt hides the payer, who alone opens it",
    async (path) => {
      const before = books();
      const served = target.served(path);
      const paid = await payCborRoute(`${target.url}${path}`, {
        key: payer,
        now: time,
        facilitatorHpkeKey: facilitator.hpkeKey,
      });
      expect(paid.response.status, paid.response.headers.get("x402-error-reason") ?? "").toBe(200);
      await paid.response.arrayBuffer();
      expect(paid.receipt).toBeUndefined();
      expect(paid.restrictedReceipt!.parts[0]).toHaveProperty("commitment");
      const opened = openRestrictedReceipt(
        paid.restrictedReceipt!,
        paid.receiptOpenings!,
        facilitator.receiptKey,
      );
      expect(opened).toMatchObject({ valid: true, revealed: { subject: payer.publicKey, object: MERCHANT } });
      // The payer's key is nowhere on the wire the gateway saw.
      const header = paid.payment!.header;
      expect(Buffer.from(decodeBase64(header)).includes(Buffer.from(payer.publicKey))).toBe(false);
      expect(books()).toEqual({
        payer: before.payer! - PRICE,
        merchant: before.merchant + PRICE,
        settlements: before.settlements + 1,
      });
      expect(target.served(path)).toBe(served + 1);
    },
  );

  it("the facilitator does not name a hidden payer to the gateway (an open one it does)", async () => {
    const { response, offer } = await fetchCborOffer(`${target.url}/sealed`);
    const mask = response.headers.get("x402-revelation-mask")!;
    const payment = await createMaskedCborPayment({
      offer,
      key: payer,
      now: time,
      mask,
      facilitatorHpkeKey: facilitator.hpkeKey,
    });
    const verdict = await facilitator.facilitator.verifyCbor({
      paymentRequest: offer,
      paymentSignature: payment.bytes,
      revelationMask: decodeBase64(mask),
    });
    expect(verdict).toEqual({ isValid: true });
    const { offer: gatedOffer, response: gated } = await fetchCborOffer(`${target.url}/layer-two`);
    const timeOnly = await createMaskedCborPayment({
      offer: gatedOffer,
      key: payer,
      now: time,
      mask: gated.headers.get("x402-revelation-mask")!,
      facilitatorHpkeKey: facilitator.hpkeKey,
    });
    const named = await facilitator.facilitator.verifyCbor({
      paymentRequest: gatedOffer,
      paymentSignature: timeOnly.bytes,
      revelationMask: decodeBase64(gated.headers.get("x402-revelation-mask")!),
    });
    expect(named).toMatchObject({ isValid: true, payer: expect.stringMatching(/^ed25519:/) });
  });

  it("Open: a part the mask hides that comes in clear is refused, and so is a hidden part on an all-Open route", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/commit`);
    const clear = createCborPayment({ offer, key: payer, now: time }).header;
    await expectRefused("/commit", clear, "revelation_mask_violation", /hides the intent's subject/);
    const openOffer = (await fetchCborOffer(`${target.url}/open`)).offer;
    const onOpen = tampered(
      createCborPayment({ offer: openOffer, key: payer, now: time }).header,
      (parts) => {
        parts[0] = new Map([["commit", new Uint8Array(32)]]);
      },
    );
    await expectRefused("/open", onOpen, "revelation_mask_violation", /subject is Commit/);
    // An Open part changed after signing (the merchant): the gateway's own checks refuse it.
    const other = tampered((await masked("/commit")).header, (parts) => (parts[2] = "merchant:other"));
    await expectRefused("/commit", other, "payment_mismatch");
  });

  it("a mask that hides only the time keeps the humanity gate: no claim, refused", async () => {
    const payment = await masked("/gated");
    await expectRefused("/gated", payment.header, "humanity_claim_required");
  });

  it("a masked intent is a ServiceAuthSigner's: a route that does not accept one refuses it", async () => {
    const payment = await masked("/layer-two");
    await expectRefused("/layer-two", payment.header, "signer_not_accepted", /masked intent/);
  });

  it("Commit: a commitment that does not open is refused by the facilitator; missing openings by the gateway", async () => {
    const payment = await masked("/commit");
    const wrong = tampered(payment.header, (parts) => {
      const hidden = parts[0] as Map<string, Uint8Array>;
      parts[0] = new Map([["commit", flipLast(hidden.get("commit")!)]]);
    });
    await expectRefused("/commit", wrong, "verification_failed", /commitment_mismatch/);
    const decoded = decodePaymentSignature(decodeBase64((await masked("/commit")).header));
    const noOpenings = Buffer.from(encodePaymentSignature({ ...decoded, openings: undefined })).toString(
      "base64",
    );
    await expectRefused("/commit", noOpenings, "revelation_mask_violation", /openings/);
  });

  it("Encrypted: a tampered ciphertext (or one sealed to another key) is refused", async () => {
    const payment = await masked("/sealed");
    const wrong = tampered(payment.header, (parts) => {
      const hidden = parts[0] as Map<string, Uint8Array>;
      parts[0] = new Map([["hpke", flipLast(hidden.get("hpke")!)]]);
    });
    await expectRefused("/sealed", wrong, "verification_failed", /hpke_open_failed/);
    const { response, offer } = await fetchCborOffer(`${target.url}/sealed`);
    const elsewhere = await createMaskedCborPayment({
      offer,
      key: payer,
      now: time,
      mask: response.headers.get("x402-revelation-mask")!,
      facilitatorHpkeKey: new Uint8Array(32).fill(9),
    });
    await expectRefused("/sealed", elsewhere.header, "verification_failed", /hpke_open_failed/);
  });

  it("ZK: a proof slot without the stand-in proof is refused; a ZK part sent as a commitment too", async () => {
    const payment = await masked("/sealed");
    const wrong = tampered(payment.header, (parts) => {
      parts[4] = new Map([["zk", new Uint8Array(32)]]);
    });
    await expectRefused("/sealed", wrong, "verification_failed", /stand_in_zk_proof_mismatch/);
    const asCommit = tampered((await masked("/sealed")).header, (parts) => {
      parts[4] = new Map([["commit", new Uint8Array(32)]]);
    });
    await expectRefused("/sealed", asCommit, "revelation_mask_violation", /time is Commit/);
  });
});
