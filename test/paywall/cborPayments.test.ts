import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { decodePaymentRequest } from "../../src/protocol/cbor/PaymentRequest.js";
import { decodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import { decodeClaim, encodeClaim } from "../../src/protocol/cbor/Claim.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import type { X402Options } from "../../src/index.js";
import {
  CBOR_TARGET_KINDS,
  startCborTarget,
  type CborTarget,
  type CborTargetSettings,
} from "../support/cborTargets.js";
import { issueGrant, type GrantTerms } from "../../src/protocol/cbor/issueGrant.js";
import type { SigningKey } from "../../src/protocol/cbor/signatures.js";
import { CBOR, cborRefusal, fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";

const MERCHANT = "merchant:cbor-test";
const ed25519 = createSigningKey("ed25519");
const mlDsa = createSigningKey("ml-dsa-65");
const PRICE = 2_500n;
/** Delegation roots: accounts at the facilitator; their agents have none (they pay on the root's behalf). */
const roots = [0, 1, 2].map(() => createSigningKey("ed25519"));
/** The clock both the paywall and the facilitator read: tests move it forward to expire offers. */
let clockOffsetMs = 0;
const now = () => Date.now() + clockOffsetMs;

/**
 * Each intent needs its own second: the same key answering the same offer (both targets issue the same
 * PaymentRequest in the same minute) in the same second signs the same intent, which pays once.
 */
let tick = 0;
const time = () => Math.floor(now() / 1000) + tick++;

let stack: LocalStack;
let cborFacilitator: RunningCborFacilitator;

beforeAll(async () => {
  stack = await startLocalStack();
  cborFacilitator = await startCborFacilitator({
    now,
    accounts: [
      { publicKey: ed25519.publicKey, balances: { USDC: 1_000_000n } },
      { publicKey: mlDsa.publicKey, balances: { USDC: 1_000_000n } },
      ...roots.map((root) => ({ publicKey: root.publicKey, balances: { USDC: 1_000_000n } })),
    ],
  });
}, 60_000);
afterAll(async () => {
  await cborFacilitator?.stop();
  await stack?.stop();
});

function routes(tokenAddress: string): X402Options["routes"] {
  const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
  return {
    "GET /quote": { price: { amount: "10000", asset: tokenAddress }, cbor },
    "GET /other": { cbor: { ...cbor, amount: "2499" } },
    "GET /release": { cbor },
    "GET /before": { cbor, settle: "before" },
  };
}

/** What the middleware and the gateway are both given: the facilitators, the merchant, the asset. */
function paywallSettings(): CborTargetSettings {
  return {
    facilitator: { url: stack.facilitatorUrl },
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: cborFacilitator.url } },
    payTo: stack.accounts.payee.address,
    network: stack.network,
    assets: [
      { network: stack.network, address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    routes: routes(stack.token.address),
  };
}

describe.each(CBOR_TARGET_KINDS)("application/x402+cbor through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, paywallSettings(), now);
  });
  afterAll(async () => target?.stop());

  const balance = (key = ed25519) => cborFacilitator.payerBalance(key.publicKey, "USDC");
  const merchant = () => cborFacilitator.merchantBalance(MERCHANT, "USDC");

  it("negotiates: Accept preferring CBOR gets the CBOR 402 (header = body), anything else JSON; Vary: Accept on both", async () => {
    const { response, offer, body } = await fetchCborOffer(`${target.url}/quote`);
    expect(response.status).toBe(402);
    expect(response.headers.get("content-type")).toBe(CBOR);
    expect(response.headers.get("vary")).toMatch(/Accept/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(Buffer.from(body)).toEqual(Buffer.from(offer));
    const request = decodePaymentRequest(offer);
    expect(request).toMatchObject({
      currency: "USDC",
      amount: PRICE,
      merchantPseudonym: MERCHANT,
      serviceId: "GET /quote",
      claimSchemaRef: "schema:v0.3:payment-intent",
      acceptsHumanityGate: false,
    });
    expect(request.deadline.getTime() % 60_000).toBe(0);
    for (const accept of [
      undefined,
      "application/json",
      `application/json, ${CBOR};q=0.5`,
      "application/x402+foo",
      "*/*",
    ]) {
      const json = await fetch(`${target.url}/quote`, { headers: accept ? { accept } : {} });
      expect(json.status, String(accept)).toBe(402);
      expect(json.headers.get("content-type")).toMatch(/^application\/json/);
      expect(json.headers.get("vary")).toMatch(/Accept/);
      await json.arrayBuffer();
    }
    const only = await fetch(`${target.url}/other`);
    expect(only.headers.get("content-type")).toBe(CBOR);
    await only.arrayBuffer();
  });

  it.each([
    ["Ed25519", ed25519],
    ["ML-DSA-65", mlDsa],
  ])(
    "%s: offer → intent → POST → 200 + a receipt verifyReceipt accepts; balances move once; the handler sees a GET",
    async (_alg, key) => {
      const [payerBefore, merchantBefore, servedBefore] = [balance(key), merchant(), target.served("/quote")];
      const paid = await payCborRoute(`${target.url}/quote`, { key, now: () => time() * 1000 });
      expect(paid.offeredStatus).toBe(402);
      expect(paid.response.status).toBe(200);
      expect(paid.response.headers.get("cache-control")).toBe("private");
      expect(await paid.response.json()).toMatchObject({ method: "GET" });
      const verdict = verifyReceipt(paid.receipt!, cborFacilitator.receiptKey);
      expect(verdict.valid).toBe(true);
      if (verdict.valid) {
        expect(verdict.claim).toMatchObject({
          predicate: "was_paid",
          object: MERCHANT,
          quantity: { amount: PRICE },
        });
        expect(verdict.claim.subject).toEqual(key.publicKey);
      }
      expect(balance(key)).toBe(payerBefore! - PRICE);
      expect(merchant()).toBe(merchantBefore + PRICE);
      expect(target.served("/quote")).toBe(servedBefore + 1);
      expect(target.lastSeen("/quote")).toMatchObject({
        method: "GET",
        contentType: undefined,
        bodyBytes: 0,
      });
    },
  );

  it("settle: before also pays once and serves", async () => {
    const before = balance();
    const paid = await payCborRoute(`${target.url}/before`, { key: ed25519, now: () => time() * 1000 });
    expect(paid.response.status).toBe(200);
    expect(verifyReceipt(paid.receipt!, cborFacilitator.receiptKey).valid).toBe(true);
    expect(balance()).toBe(before! - PRICE);
  });

  it("refuses, each with its code, settling nothing and never running the handler", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/quote`);
    const { offer: otherOffer } = await fetchCborOffer(`${target.url}/other`);
    const other = createSigningKey("ed25519");
    const cases: Array<[string, string, number, string]> = [
      [
        "tampered context",
        signedIntent(offer, ed25519, {}, { time: time(), mutate: (b) => flipLast(b) }),
        402,
        "payment_mismatch",
      ],
      [
        "tampered time (the signature no longer matches)",
        signedIntent(
          offer,
          ed25519,
          {},
          { time: time(), mutate: (b) => encodeClaim({ ...decodeClaim(b), time: 1 }) },
        ),
        402,
        "verification_failed",
      ],
      [
        "signed by another key",
        signedIntent(offer, ed25519, {}, { time: time(), signer: other }),
        402,
        "verification_failed",
      ],
      [
        "wrong amount",
        signedIntent(
          offer,
          ed25519,
          { quantity: { currency: "USDC", amount: PRICE - 1n } },
          { time: time() },
        ),
        402,
        "payment_mismatch",
      ],
      [
        "wrong currency",
        signedIntent(offer, ed25519, { quantity: { currency: "STRK", amount: PRICE } }, { time: time() }),
        402,
        "payment_mismatch",
      ],
      [
        "wrong merchant",
        signedIntent(offer, ed25519, { object: "merchant:someone-else" }, { time: time() }),
        402,
        "payment_mismatch",
      ],
      [
        "other route's request",
        signedIntent(
          otherOffer,
          ed25519,
          { quantity: { currency: "USDC", amount: PRICE } },
          { time: time() },
        ),
        402,
        "payment_mismatch",
      ],
      ["not base64", "%%%", 400, "invalid_payment"],
      ["not CBOR", Buffer.from("{}").toString("base64"), 400, "invalid_payment"],
      ["non-canonical CBOR", Buffer.from("b90000", "hex").toString("base64"), 400, "invalid_payment"],
    ];
    const [payerBefore, merchantBefore, settles] = [balance(), merchant(), cborFacilitator.calls.settle];
    const verifies = cborFacilitator.calls.verify;
    const served = target.served("/quote");
    for (const [name, header, status, code] of cases) {
      const response = await postCborPayment(`${target.url}/quote`, header);
      expect(response.status, name).toBe(status);
      if (status === 402) {
        expect(response.headers.get("x402-error"), name).toBe(code);
        expect(response.headers.get("content-type")).toBe(CBOR);
        expect(decodePaymentRequest(new Uint8Array(await response.arrayBuffer())).serviceId).toBe(
          "GET /quote",
        );
      } else {
        expect((await cborRefusal(response)).error, name).toBe(code);
      }
    }
    expect([balance(), merchant(), cborFacilitator.calls.settle]).toEqual([
      payerBefore,
      merchantBefore,
      settles,
    ]);
    expect(cborFacilitator.calls.verify, "the gateway's own checks refuse these").toBe(verifies);
    expect(target.served("/quote")).toBe(served);
  });

  it("property: random and mutated payments are refused (400/402) and never reach the facilitator or the handler", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/quote`);
    const valid = Buffer.from(signedIntent(offer, ed25519, {}, { time: time() }), "base64");
    const [verifies, served] = [cborFacilitator.calls.verify, target.served("/quote")];
    // The stand-in proof is not signed and is the facilitator's to check: mutations elsewhere only.
    const proofAt = valid.indexOf(Buffer.from(decodePaymentSignature(valid).starkProof));
    const outsideProof = (at: number) => at < proofAt || at >= proofAt + 32;
    const payments = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }),
      fc
        .tuple(fc.nat({ max: valid.length - 1 }).filter(outsideProof), fc.integer({ min: 1, max: 255 }))
        .map(([at, xor]) => {
          const copy = new Uint8Array(valid);
          copy[at] = (copy[at] as number) ^ xor;
          return copy;
        }),
    );
    await fc.assert(
      fc.asyncProperty(payments, async (bytes) => {
        const response = await postCborPayment(`${target.url}/quote`, Buffer.from(bytes).toString("base64"));
        await response.arrayBuffer();
        expect([400, 402]).toContain(response.status);
      }),
      { numRuns: 60 },
    );
    expect([cborFacilitator.calls.verify, target.served("/quote")]).toEqual([verifies, served]);
  });

  it("an expired offer is refused as expired; a replayed intent as already used", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/quote`);
    const header = signedIntent(offer, ed25519, {}, { time: time() });
    clockOffsetMs += 10 * 60_000;
    try {
      const expired = await postCborPayment(`${target.url}/quote`, header);
      expect(expired.status).toBe(402);
      expect(expired.headers.get("x402-error")).toBe("payment_mismatch");
    } finally {
      clockOffsetMs -= 10 * 60_000;
    }
    const first = await postCborPayment(`${target.url}/quote`, header);
    expect(first.status, first.headers.get("x402-error") ?? "").toBe(200);
    const before = [balance(), target.served("/quote")];
    const replay = await postCborPayment(`${target.url}/quote`, header);
    expect(replay.status).toBe(402);
    expect(replay.headers.get("x402-error")).toBe("payment_already_used");
    expect([balance(), target.served("/quote")]).toEqual(before);
  });

  it("concurrent copies of one intent: one is served and paid, the others get 409 payment_in_progress", async () => {
    const { offer } = await fetchCborOffer(`${target.url}/release`);
    const header = signedIntent(offer, ed25519, {}, { time: time() });
    const before = balance();
    const first = postCborPayment(`${target.url}/release`, header);
    await waitFor(() => target.served("/release") === 1);
    const copies = await Promise.all([1, 2, 3].map(() => postCborPayment(`${target.url}/release`, header)));
    expect(copies.map((response) => response.status)).toEqual([409, 409, 409]);
    // A CBOR client's 409 is a CBOR body naming the code and why.
    for (const copy of copies) {
      expect(await cborRefusal(copy)).toMatchObject({
        error: "payment_in_progress",
        reason: expect.stringMatching(/being used by another request/),
      });
    }
    target.release();
    expect((await first).status).toBe(200);
    expect(balance()).toBe(before! - PRICE);
    expect(target.served("/release")).toBe(1);
  });

  it("a PAYMENT-SIGNATURE over 64 KiB of CBOR is 431; a POST with a body is not a paid retry", async () => {
    const huge = await postCborPayment(`${target.url}/quote`, "A".repeat(90_000));
    expect(huge.status).toBe(431);
    await huge.arrayBuffer();
    const { offer } = await fetchCborOffer(`${target.url}/quote`);
    const withBody = await fetch(`${target.url}/quote`, {
      method: "POST",
      headers: {
        "content-type": CBOR,
        "payment-signature": signedIntent(offer, ed25519, {}, { time: time() }),
      },
      body: "not empty",
    });
    // Not the GET's retry: POST /quote is unpriced, so it passes through untouched and unpaid.
    expect(withBody.headers.get("payment-response")).toBeNull();
    await withBody.arrayBuffer();
    expect(target.lastSeen("/quote")).toMatchObject({ method: "POST", bodyBytes: 9 });
  });

  it("an unknown payment media type is 415", async () => {
    const response = await fetch(`${target.url}/quote`, {
      headers: { "content-type": "application/x402+foo", "payment-signature": "AAAA" },
    });
    expect(response.status).toBe(415);
    await response.arrayBuffer();
  });

  describe("delegation chains", () => {
    /** A chain root → … → agent over fresh intermediate keys, link i with `terms[i]`. */
    function chain(root: SigningKey, agent: SigningKey, terms: Array<Partial<GrantTerms>>): Uint8Array[] {
      const path = [root, ...terms.slice(1).map(() => createSigningKey("ed25519")), agent];
      return terms.map((term, i) =>
        issueGrant(path[i] as SigningKey, {
          scope: { kind: "merchant", merchant: MERCHANT },
          cap: { currency: "USDC", amount: 100n * PRICE },
          validUntil: Math.floor(now() / 1000) + 3600,
          ...term,
          delegate: (path[i + 1] as SigningKey).publicKey,
        }),
      );
    }
    const paidThrough = async (path: string, agent: SigningKey, delegationChain: Uint8Array[]) => {
      const { offer } = await fetchCborOffer(`${target.url}${path}`);
      const response = await postCborPayment(
        `${target.url}${path}`,
        signedIntent(offer, agent, {}, { time: time(), delegationChain }),
      );
      await response.arrayBuffer();
      return { status: response.status, code: response.headers.get("x402-error") };
    };

    it("an agent with no account pays through root → delegate → agent: the root's account is debited", async () => {
      const root = roots[0] as SigningKey;
      const agent = createSigningKey("ed25519");
      const [rootBefore, merchantBefore, served] = [balance(root), merchant(), target.served("/quote")];
      const links = chain(root, agent, [
        { scope: { kind: "any" } },
        { scope: { kind: "service", merchant: MERCHANT, service: "GET /quote" } },
      ]);
      const paid = await payCborRoute(`${target.url}/quote`, {
        key: agent,
        delegationChain: links,
        now: () => time() * 1000,
      });
      expect(paid.response.status, paid.response.headers.get("x402-error") ?? "").toBe(200);
      expect(verifyReceipt(paid.receipt!, cborFacilitator.receiptKey).valid).toBe(true);
      expect(balance(root)).toBe(rootBefore! - PRICE);
      expect(balance(agent)).toBeUndefined();
      expect(merchant()).toBe(merchantBefore + PRICE);
      expect(target.served("/quote")).toBe(served + 1);
    });

    it("refuses each fault of a chain with its code, settling nothing and never running the handler", async () => {
      const root = roots[1] as SigningKey;
      const agent = createSigningKey("ed25519");
      const stranger = createSigningKey("ed25519");
      const good = chain(root, agent, [{}]);
      const flipped = good.map((grant) => {
        const copy = new Uint8Array(grant);
        copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 1;
        return copy;
      });
      const hour = Math.floor(now() / 1000) + 3600;
      // details.problem (malformed, bad_signature, …) is asserted by the protocol tests; the wire carries the code.
      const cases: Array<[string, SigningKey, Uint8Array[], string, string?]> = [
        ["malformed", agent, [new Uint8Array([0xa0])], "delegation_invalid", "malformed"],
        ["empty", agent, [], "delegation_invalid", "malformed"],
        ["bad signature", agent, flipped, "delegation_invalid", "bad_signature"],
        [
          "broken link",
          agent,
          [...chain(root, stranger, [{}]), ...chain(root, agent, [{}])],
          "delegation_invalid",
          "broken_link",
        ],
        ["cycle", root, chain(root, root, [{}]), "delegation_invalid", "cycle"],
        ["too long", agent, chain(root, agent, [{}, {}, {}, {}, {}]), "delegation_invalid", "too_long"],
        ["wrong subject", stranger, good, "delegation_invalid", "wrong_subject"],
        ["expired", agent, chain(root, agent, [{}, { validUntil: hour - 7200 }]), "delegation_expired"],
        [
          "other merchant",
          agent,
          chain(root, agent, [{ scope: { kind: "merchant", merchant: "merchant:other" } }]),
          "delegation_out_of_scope",
        ],
        [
          "other service",
          agent,
          chain(root, agent, [{ scope: { kind: "service", merchant: MERCHANT, service: "GET /other" } }]),
          "delegation_out_of_scope",
        ],
        [
          "cap in STRK",
          agent,
          chain(root, agent, [{ cap: { currency: "STRK", amount: 10n ** 18n } }]),
          "delegation_cap_exceeded",
        ],
        [
          "cap below the price",
          agent,
          chain(root, agent, [{}, { cap: { currency: "USDC", amount: PRICE - 1n } }]),
          "delegation_cap_exceeded",
        ],
      ];
      const before = [
        balance(root),
        merchant(),
        cborFacilitator.calls.verify,
        cborFacilitator.calls.settle,
        target.served("/quote"),
      ];
      for (const [name, signer, links, code] of cases) {
        const { offer } = await fetchCborOffer(`${target.url}/quote`);
        const response = await postCborPayment(
          `${target.url}/quote`,
          signedIntent(offer, signer, {}, { time: time(), delegationChain: links }),
        );
        expect(response.status, name).toBe(402);
        expect(response.headers.get("x402-error"), name).toBe(code);
        expect(decodePaymentRequest(new Uint8Array(await response.arrayBuffer())).serviceId).toBe(
          "GET /quote",
        );
      }
      expect([
        balance(root),
        merchant(),
        cborFacilitator.calls.verify,
        cborFacilitator.calls.settle,
        target.served("/quote"),
      ]).toEqual(before);
    });

    it("a grant's cap holds across payments: 10 concurrent intents under a cap of 3 prices → exactly 3 served and settled", async () => {
      const root = roots[2] as SigningKey;
      const agent = createSigningKey("ed25519");
      const links = chain(root, agent, [{ cap: { currency: "USDC", amount: 3n * PRICE } }, {}]);
      const [rootBefore, settles, served] = [
        balance(root),
        cborFacilitator.calls.settle,
        target.served("/quote"),
      ];
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () => paidThrough("/quote", agent, links)),
      );
      expect(outcomes.filter((outcome) => outcome.status === 200)).toHaveLength(3);
      for (const refused of outcomes.filter((outcome) => outcome.status !== 200)) {
        expect(refused).toEqual({ status: 402, code: "delegation_cap_exceeded" });
      }
      expect(cborFacilitator.calls.settle - settles).toBe(3);
      expect(balance(root)).toBe(rootBefore! - 3n * PRICE);
      expect(target.served("/quote")).toBe(served + 3);
    });

    it("a payment the facilitator refuses gives its charge back: the next one under the same cap pays", async () => {
      const root = roots[0] as SigningKey;
      const agent = createSigningKey("ed25519");
      const links = chain(root, agent, [{ cap: { currency: "USDC", amount: PRICE } }]);
      const { offer } = await fetchCborOffer(`${target.url}/quote`);
      const rootBefore = balance(root);
      const refused = await postCborPayment(
        `${target.url}/quote`,
        signedIntent(offer, agent, {}, { time: time(), delegationChain: links, proof: new Uint8Array(32) }),
      );
      expect(refused.status).toBe(402);
      expect(refused.headers.get("x402-error")).toBe("verification_failed");
      await refused.arrayBuffer();
      expect(await paidThrough("/quote", agent, links)).toEqual({ status: 200, code: null });
      expect(await paidThrough("/quote", agent, links)).toEqual({
        status: 402,
        code: "delegation_cap_exceeded",
      });
      expect(balance(root)).toBe(rootBefore! - PRICE);
    });
  });

  it("a JSON client (official @x402/fetch, on anvil) and a CBOR client pay the same route", async () => {
    const payee = await stack.balanceOf(stack.accounts.payee.address);
    const paying = createPayingFetch({
      privateKey: stack.accounts.payer.privateKey,
      allowedAssets: [{ network: stack.network, asset: stack.token.address }],
    });
    const json = await paying.fetch(`${target.url}/quote`);
    expect(json.status).toBe(200);
    await json.arrayBuffer();
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(payee + 10_000n);
    const cbor = await payCborRoute(`${target.url}/quote`, { key: ed25519, now: () => time() * 1000 });
    expect(cbor.response.status).toBe(200);
  });
});

function flipLast(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 1;
  return copy;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error("timed out waiting");
}
