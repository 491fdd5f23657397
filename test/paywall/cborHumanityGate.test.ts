import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { createCborPayment } from "../../src/payer/createCborPayment.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { issueHumanityClaim } from "../../src/protocol/cbor/checkHumanityClaim.js";
import { decodePaymentRequest } from "../../src/protocol/cbor/PaymentRequest.js";
import { createSigningKey, type SigningKey } from "../../src/protocol/cbor/signatures.js";
import { encodeSignedClaim, signClaim } from "../../src/protocol/cbor/SignedClaim.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import { CBOR, fetchCborOffer, postCborPayment } from "../support/cborClient.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";

const MERCHANT = "merchant:humans";
const PRICE = 700n;
const issuer = createSigningKey("ed25519");
const pqIssuer = createSigningKey("ml-dsa-65");
const stranger = createSigningKey("ed25519");
const payer = createSigningKey("ed25519");
const pqPayer = createSigningKey("ml-dsa-65");
const hex = (key: SigningKey) => Buffer.from(key.publicKey).toString("hex");
const now = () => Date.now();
const nowSeconds = () => Math.floor(now() / 1000);
/** One intent per second per key and offer: step the intent's time so each payment is new. */
let tick = 0;
const time = () => (nowSeconds() + tick++) * 1000;

let facilitator: RunningCborFacilitator;
beforeAll(async () => {
  facilitator = await startCborFacilitator({
    now,
    accounts: [payer, pqPayer].map((key) => ({ publicKey: key.publicKey, balances: { USDC: 1_000_000n } })),
  });
});
afterAll(async () => facilitator?.stop());

function settings() {
  const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
  return {
    facilitator: { url: facilitator.url },
    cbor: {
      merchantPseudonym: MERCHANT,
      facilitator: { url: facilitator.url },
      humanityIssuers: [hex(issuer)],
    },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:31337" as const,
    routes: {
      "GET /human": { cbor: { ...cbor, acceptsHumanityGate: true } },
      // The route's own list replaces the shared one: only the ML-DSA-65 issuer is trusted here.
      "GET /pq-human": { cbor: { ...cbor, acceptsHumanityGate: true, humanityIssuers: [hex(pqIssuer)] } },
      "GET /open": { cbor },
    },
  };
}

function humanityOf(key: SigningKey, by = issuer, validFor = 600): Uint8Array {
  return issueHumanityClaim(by, {
    subject: key.publicKey,
    label: "issuer:test",
    validUntil: nowSeconds() + validFor,
  });
}

describe.each(CBOR_TARGET_KINDS)("the humanity gate through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, settings(), now);
  });
  afterAll(async () => target?.stop());

  const books = () => ({
    payer: facilitator.payerBalance(payer.publicKey, "USDC"),
    merchant: facilitator.merchantBalance(MERCHANT, "USDC"),
    settlements: facilitator.book.settlements(),
    verify: facilitator.calls.verify,
    settle: facilitator.calls.settle,
  });

  /** A payment for `path` signed by `key` at `at` (ms), carrying `humanityClaim`. */
  async function payment(path: string, humanityClaim?: Uint8Array, key = payer, at = time()) {
    const { offer } = await fetchCborOffer(`${target.url}${path}`);
    return createCborPayment({ offer, key, now: () => at, humanityClaim }).header;
  }

  it("the offer says accepts_humanity_gate; a payer with a trusted issuer's claim pays once and is served", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/human`);
    expect(decodePaymentRequest(offer).acceptsHumanityGate).toBe(true);
    const before = books();
    const served = target.served("/human");
    let asked = 0;
    const paid = await payCborRoute(`${target.url}/human`, {
      key: payer,
      now: time,
      humanityClaim: (request, subject) => {
        asked++;
        expect(request.acceptsHumanityGate).toBe(true);
        return issueHumanityClaim(issuer, { subject, label: "issuer:test", validUntil: nowSeconds() + 60 });
      },
    });
    expect(paid.response.status).toBe(200);
    expect(verifyReceipt(paid.receipt!, facilitator.receiptKey).valid).toBe(true);
    expect(asked).toBe(1);
    expect(books()).toMatchObject({
      payer: before.payer! - PRICE,
      merchant: before.merchant + PRICE,
      settlements: before.settlements + 1,
    });
    expect(target.served("/human")).toBe(served + 1);
  });

  it("an ML-DSA-65 issuer (and payer) works; the route's own issuer list replaces the shared one", async () => {
    const ok = await postCborPayment(
      `${target.url}/pq-human`,
      await payment("/pq-human", humanityOf(pqPayer, pqIssuer), pqPayer),
    );
    expect(ok.status, ok.headers.get("x402-error") ?? "").toBe(200);
    await ok.arrayBuffer();
    const shared = await postCborPayment(
      `${target.url}/pq-human`,
      await payment("/pq-human", humanityOf(payer, issuer)),
    );
    expect(shared.status).toBe(402);
    expect(shared.headers.get("x402-error")).toBe("humanity_issuer_untrusted");
    await shared.arrayBuffer();
  });

  it("refuses each bad claim with its own code: nothing reserved, verified, settled or served", async () => {
    const wrongPredicate = encodeSignedClaim(
      signClaim(issuer, {
        subject: payer.publicKey,
        predicate: "was_paid",
        object: "issuer:test",
        quantity: { currency: "USDC", amount: 1n },
        time: nowSeconds() + 600,
        context: new Uint8Array(32),
      }),
    );
    const forged = humanityOf(payer, issuer);
    forged[forged.length - 40] = (forged[forged.length - 40] as number) ^ 1;
    const cases: Array<[string, Uint8Array | undefined, string]> = [
      ["no claim", undefined, "humanity_claim_required"],
      ["not CBOR", new Uint8Array([0xff, 1, 2]), "humanity_claim_invalid"],
      ["a receipt instead of an is_human claim", wrongPredicate, "humanity_claim_invalid"],
      ["a changed byte", forged, "humanity_claim_invalid"],
      ["an issuer not trusted", humanityOf(payer, stranger), "humanity_issuer_untrusted"],
      ["about another key", humanityOf(pqPayer, issuer), "humanity_claim_mismatch"],
      ["expired", humanityOf(payer, issuer, -3600), "humanity_claim_expired"],
    ];
    const before = books();
    const served = target.served("/human");
    for (const [name, claim, code] of cases) {
      const at = time();
      const response = await postCborPayment(
        `${target.url}/human`,
        await payment("/human", claim, payer, at),
      );
      expect(response.status, name).toBe(402);
      expect(response.headers.get("x402-error"), name).toBe(code);
      expect(response.headers.get("content-type")).toBe(CBOR);
      const fresh = decodePaymentRequest(new Uint8Array(await response.arrayBuffer()));
      expect(fresh).toMatchObject({ serviceId: "GET /human", acceptsHumanityGate: true });
      // Nothing was reserved: the very same intent, now with a valid claim, pays.
      if (name === "no claim") {
        const retry = await postCborPayment(
          `${target.url}/human`,
          await payment("/human", humanityOf(payer), payer, at),
        );
        expect(retry.status, retry.headers.get("x402-error") ?? "").toBe(200);
        await retry.arrayBuffer();
        before.payer! -= PRICE;
        before.merchant += PRICE;
        before.settlements += 1;
        before.verify += 1;
        before.settle += 1;
      }
    }
    expect(books()).toEqual(before);
    expect(target.served("/human")).toBe(served + 1);
  });

  it("with the gate off, a claim is ignored, even garbage", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/open`);
    expect(decodePaymentRequest(offer).acceptsHumanityGate).toBe(false);
    const before = books();
    for (const claim of [new Uint8Array([0xff]), humanityOf(pqPayer, stranger, -3600)]) {
      const response = await postCborPayment(`${target.url}/open`, await payment("/open", claim));
      expect(response.status, response.headers.get("x402-error") ?? "").toBe(200);
      await response.arrayBuffer();
    }
    let asked = 0;
    const paid = await payCborRoute(`${target.url}/open`, {
      key: payer,
      now: time,
      humanityClaim: () => {
        asked++;
        return new Uint8Array();
      },
    });
    expect(paid.response.status).toBe(200);
    expect(asked, "a source is asked only when the offer wants a claim").toBe(0);
    expect(books().settlements).toBe(before.settlements + 3);
  });
});
