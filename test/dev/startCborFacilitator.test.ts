import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { HttpFacilitator } from "../../src/facilitator/HttpFacilitator.js";
import { createCborPayment } from "../../src/payer/createCborPayment.js";
import { resolveCborOffer } from "../../src/pricing/resolveCborOffer.js";
import { issueCborRequest } from "../../src/pricing/cborPaymentRequests.js";
import { decodePaymentSignature, encodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import { createSigningKey, payerIdOf } from "../../src/protocol/cbor/signatures.js";
import { decodeCborSettlementStatus } from "../../src/protocol/cbor/facilitatorMessages.js";
import { oneGrantDelegation } from "../support/oneGrantDelegation.js";
import { closedPort } from "../gateway/support/startUpstream.js";
import { decodeClaim } from "../../src/protocol/cbor/Claim.js";
import { isRevoked } from "../../src/protocol/cbor/revokeReceipt.js";
import {
  decodeSettlementReceipt,
  encodeSettlementReceipt,
  receiptDigest,
  signReceipt,
} from "../../src/protocol/cbor/SettlementReceipt.js";
import { decodeSignedClaim, openSignedClaim } from "../../src/protocol/cbor/SignedClaim.js";
import { fetchCborRevocations, requestCborRefund } from "../../src/dev/requestCborRefund.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import { listenOnLoopback } from "../support/listenOnLoopback.js";
import {
  DEMO_HUMANITY_ISSUER_LABEL,
  demoHumanityIssuer,
  encodeHumanityRequest,
  requestDemoHumanityClaim,
} from "../../src/dev/demoHumanityIssuer.js";
import { checkHumanityClaim } from "../../src/protocol/cbor/checkHumanityClaim.js";

const offer = resolveCborOffer(
  "GET /api/quote",
  { currency: "USDC", amount: "2500", merchantPseudonym: "merchant:test" },
  { deadlineSeconds: 300 },
);
const payer = createSigningKey("ed25519");
const pqPayer = createSigningKey("ml-dsa-65");
const poor = createSigningKey("ed25519");

describe("local CBOR facilitator over HTTP", () => {
  let dir: string;
  let running: RunningCborFacilitator;
  let client: HttpFacilitator;
  // What the post-settlement hook saw (the local stack's layer-2 recording listens there).
  const hooked: Array<{ receipt: Uint8Array; evmAddress?: string }> = [];
  /** A refund as the merchant: its token (and an amount). */
  const merchant = (amount?: bigint) => ({ merchantToken: running.merchantToken, amount });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cbor-facilitator-"));
    running = await startCborFacilitator({
      file: join(dir, "books.sqlite"),
      accounts: [
        { publicKey: payer.publicKey, balances: { USDC: 10_000n } },
        { publicKey: pqPayer.publicKey, balances: { USDC: 10_000n } },
        { publicKey: poor.publicKey, balances: { USDC: 100n } },
      ],
      onSettled: (settlement) => hooked.push(settlement),
    });
    client = new HttpFacilitator({ url: running.url });
  });
  afterAll(async () => {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // One key answering one offer within one second signs the same intent bytes: step the clock.
  let tick = 0;
  const pay = (key = payer) => {
    const issued = issueCborRequest(offer, Date.now());
    const signedAt = Date.now() + 1000 * tick++;
    const payment = createCborPayment({ offer: issued.bytes, key, now: () => signedAt });
    return { paymentRequest: issued.bytes, paymentSignature: payment.bytes, payment };
  };

  /** SHA-256 of the payment_intent a PaymentSignature carries: the key of its settlement. */
  const intentDigest = (paymentSignature: Uint8Array) =>
    new Uint8Array(
      createHash("sha256").update(decodePaymentSignature(paymentSignature).paymentIntent).digest(),
    );

  it("publishes its receipt key and says the proof is a stand-in", async () => {
    const supported = (await (await fetch(`${running.url}/supported`)).json()) as {
      proof: { kind: string; verified: boolean; notice: string };
      receiptKey: { publicKey: string };
    };
    expect(supported.proof).toMatchObject({ kind: "stand-in", verified: false });
    expect(supported.proof.notice).toMatch(/STAND-IN/);
    expect(Buffer.from(supported.receiptKey.publicKey, "base64")).toEqual(Buffer.from(running.receiptKey));
  });

  it.each([
    ["Ed25519", payer],
    ["ML-DSA-65", pqPayer],
  ])(
    "%s: verifies, settles once, moves the balances once and signs a receipt verifyReceipt accepts",
    async (_name, key) => {
      const before = running.payerBalance(key.publicKey, "USDC")!;
      const merchantBefore = running.merchantBalance("merchant:test", "USDC");
      const body = pay(key);
      expect(await client.verifyCbor(body)).toMatchObject({
        isValid: true,
        payer: expect.stringMatching(/^(ed25519|ml-dsa-65):/),
      });
      const hookedBefore = hooked.length;
      const settled = await client.settleCbor(body);
      expect(settled.success).toBe(true);
      // One hook call per settlement; no intent is bound to an EVM address yet, so none is named.
      expect(hooked.slice(hookedBefore)).toEqual([{ receipt: settled.receipt }]);
      const verdict = verifyReceipt(settled.receipt!, running.receiptKey);
      expect(verdict.valid).toBe(true);
      if (verdict.valid) {
        expect(verdict.claim).toMatchObject({
          predicate: "was_paid",
          object: "merchant:test",
          quantity: { currency: "USDC", amount: 2500n },
        });
        expect(verdict.claim.subject).toEqual(key.publicKey);
      }
      expect(await client.settleCbor(body)).toEqual({
        success: false,
        errorReason: "intent_already_settled",
      });
      expect(hooked.length).toBe(hookedBefore + 1);
      expect(running.payerBalance(key.publicKey, "USDC")).toBe(before - 2500n);
      expect(running.merchantBalance("merchant:test", "USDC")).toBe(merchantBefore + 2500n);
    },
  );

  it("refuses a wrong stand-in proof, a tampered intent, an unknown payer and an empty account, moving nothing", async () => {
    const settledBefore = running.book.settlements();
    const hookedBefore = hooked.length;
    const body = pay();
    const decoded = decodePaymentSignature(body.paymentSignature);
    const wrongProof = encodePaymentSignature({ ...decoded, starkProof: new Uint8Array(32) });
    expect(await client.verifyCbor({ ...body, paymentSignature: wrongProof })).toEqual({
      isValid: false,
      invalidReason: "stand_in_proof_mismatch",
    });
    const tampered = new Uint8Array(decoded.paymentIntent);
    tampered[5] = (tampered[5] as number) ^ 1;
    const tamperedBody = encodePaymentSignature({ ...decoded, paymentIntent: tampered });
    expect((await client.settleCbor({ ...body, paymentSignature: tamperedBody })).success).toBe(false);
    expect(await client.settleCbor(pay(createSigningKey("ed25519")))).toEqual({
      success: false,
      errorReason: "unknown_payer",
    });
    expect(await client.settleCbor(pay(poor))).toEqual({ success: false, errorReason: "insufficient_funds" });
    const otherRequest = issueCborRequest({ ...offer, amount: 1n }, Date.now()).bytes;
    expect(await client.verifyCbor({ ...body, paymentRequest: otherRequest })).toMatchObject({
      isValid: false,
      invalidReason: "context_mismatch",
    });
    expect(running.book.settlements()).toBe(settledBefore);
    expect(hooked.length).toBe(hookedBefore);
    expect(running.payerBalance(poor.publicKey, "USDC")).toBe(100n);
  });

  it("GET /settlements/<intent digest>: settled: false before, the settle's own receipt after, read any number of times; /settle still settles once", async () => {
    const body = pay();
    const digest = intentDigest(body.paymentSignature);
    const [calls, balance] = [running.calls.settlements, running.payerBalance(payer.publicKey, "USDC")!];
    expect(await client.cborSettlementOf(digest)).toEqual({ settled: false });
    expect(await running.facilitator.cborSettlementOf(digest)).toEqual({ settled: false });
    const settled = await client.settleCbor(body);
    expect(settled.success).toBe(true);
    for (let read = 0; read < 2; read++) {
      expect(await client.cborSettlementOf(digest)).toEqual({ settled: true, receipt: settled.receipt });
    }
    expect(await running.facilitator.cborSettlementOf(digest)).toEqual({
      settled: true,
      receipt: settled.receipt,
    });
    // A replay elsewhere is still refused, and handed no receipt.
    expect(await client.settleCbor(body)).toEqual({ success: false, errorReason: "intent_already_settled" });
    const raw = await fetch(`${running.url}/settlements/${Buffer.from(digest).toString("hex")}`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toBe("application/x402+cbor");
    expect(decodeCborSettlementStatus(new Uint8Array(await raw.arrayBuffer()))).toEqual({
      settled: true,
      receipt: settled.receipt,
    });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(balance - 2500n);
    expect(running.calls.settlements - calls).toBe(4);
  });

  it("GET /settlements with a malformed digest is 400; a digest of another length is refused before any request", async () => {
    const good = Buffer.from(intentDigest(pay().paymentSignature)).toString("hex");
    const calls = running.calls.settlements;
    const malformed = [
      good.toUpperCase(),
      good.slice(1),
      `${good}0`,
      `${good}/x`,
      `${good.slice(2)}%41`,
      "",
      `0x${good.slice(2)}`,
    ];
    for (const segment of malformed) {
      const response = await fetch(`${running.url}/settlements/${segment}`);
      expect(response.status, segment).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_request");
    }
    expect(running.calls.settlements - calls).toBe(malformed.length);
    for (const facilitator of [client, running.facilitator]) {
      await expect(facilitator.cborSettlementOf(new Uint8Array(31))).rejects.toMatchObject({
        code: "facilitator_error",
        details: { endpoint: "settlements", reason: "rejected" },
      });
    }
    expect(running.calls.settlements - calls).toBe(malformed.length);
  });

  it("the HTTP client's status read: failures classified as for its other calls, and retried once only when unreachable", async () => {
    const digest = intentDigest(pay().paymentSignature);
    const replies: Record<string, (res: ServerResponse) => void> = {
      malformed: (res) =>
        res.writeHead(200, { "content-type": "application/x402+cbor" }).end(Buffer.from("a0", "hex")),
      down: (res) => res.writeHead(503, { "retry-after": "7" }).end(),
      refused: (res) => res.writeHead(404, { "content-type": "application/json" }).end("{}"),
      hang: () => undefined,
    };
    const seen: string[] = [];
    const broken = await listenOnLoopback((req, res) => {
      const [, mode, , hex] = (req.url ?? "").split("/");
      seen.push(`${mode}:${hex?.length}`);
      replies[mode!]?.(res);
    });
    try {
      const at = (mode: string) => new HttpFacilitator({ url: `${broken.url}/${mode}`, timeoutMs: 300 });
      await expect(at("malformed").cborSettlementOf(digest)).rejects.toMatchObject({
        code: "facilitator_error",
        details: { endpoint: "settlements", reason: "malformed" },
      });
      await expect(at("down").cborSettlementOf(digest)).rejects.toMatchObject({
        code: "facilitator_unavailable",
        retryAfterSeconds: 7,
        details: { endpoint: "settlements", reason: "server_error" },
      });
      await expect(at("refused").cborSettlementOf(digest)).rejects.toMatchObject({
        code: "facilitator_error",
        details: { endpoint: "settlements", reason: "rejected", status: 404 },
      });
      await expect(at("hang").cborSettlementOf(digest)).rejects.toMatchObject({
        code: "facilitator_unavailable",
        details: { endpoint: "settlements", reason: "timeout" },
      });
      // Each answered (or timed out) once: only an unreachable facilitator is asked again.
      expect(seen).toEqual(["malformed:64", "down:64", "refused:64", "hang:64"]);
    } finally {
      await broken.close();
    }
    let attempts = 0;
    const port = await closedPort();
    const unreachable = new HttpFacilitator({
      url: `http://127.0.0.1:${port}`,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    await expect(unreachable.cborSettlementOf(digest)).rejects.toMatchObject({
      code: "facilitator_unavailable",
      details: { endpoint: "settlements", reason: "unreachable" },
    });
    expect(attempts).toBe(2);
  });

  it("holds a delegation grant's cap in its books: verify and settle refuse delegation_cap_exceeded once spent, debiting nothing; a refund gives the grant back", async () => {
    const {
      root,
      agent,
      chain,
      rootBalance: balance,
    } = oneGrantDelegation(running.book, {
      cap: 2n * 2500n,
      balance: 100_000n,
    });
    const delegated = () => {
      const issued = issueCborRequest(offer, Date.now());
      const signedAt = Date.now() + 1000 * tick++;
      const payment = createCborPayment({
        offer: issued.bytes,
        key: agent,
        now: () => signedAt,
        delegationChain: chain,
      });
      return { paymentRequest: issued.bytes, paymentSignature: payment.bytes };
    };
    // Two payments verified before either settles: both pass verify, the books refuse the one too many.
    const [first, second, third] = [delegated(), delegated(), delegated()];
    for (const body of [first, second, third]) {
      expect(await client.verifyCbor(body)).toMatchObject({
        isValid: true,
        payer: payerIdOf(root.publicKey),
      });
    }
    expect((await client.settleCbor(first)).success).toBe(true);
    const kept = await client.settleCbor(second);
    expect(kept.success).toBe(true);
    expect(await client.settleCbor(third)).toEqual({
      success: false,
      errorReason: "delegation_cap_exceeded",
    });
    expect(await client.cborSettlementOf(intentDigest(third.paymentSignature))).toEqual({ settled: false });
    // Exhausted: verify refuses at once.
    expect(await client.verifyCbor(delegated())).toEqual({
      isValid: false,
      invalidReason: "delegation_cap_exceeded",
    });
    expect(balance()).toBe(100_000n - 5000n);
    expect(running.payerBalance(agent.publicKey, "USDC")).toBeUndefined();
    // A refund of one payment makes room for one more.
    expect((await requestCborRefund(running.url, kept.receipt!, merchant())).ok).toBe(true);
    expect(balance()).toBe(100_000n - 2500n);
    const again = delegated();
    expect(await client.verifyCbor(again)).toMatchObject({ isValid: true });
    expect((await client.settleCbor(again)).success).toBe(true);
    expect(await client.verifyCbor(delegated())).toMatchObject({ isValid: false });
    expect(balance()).toBe(100_000n - 5000n);
  });

  it("POST /refund credits the payer back once, answers the facilitator's revocation, and GET /revocations lists it", async () => {
    const settled = await client.settleCbor(pay());
    expect(settled.success).toBe(true);
    const receipt = settled.receipt!;
    const payerBefore = running.payerBalance(payer.publicKey, "USDC")!;
    const merchantBefore = running.merchantBalance("merchant:test", "USDC");
    expect(isRevoked(receipt, await fetchCborRevocations(running.url), running.receiptKey)).toBe(false);

    const first = await requestCborRefund(running.url, receipt, merchant());
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const revocation = openSignedClaim(first.revocation, {
      predicate: "revokes",
      trustedSigners: [running.receiptKey],
    });
    expect(revocation).toMatchObject({
      valid: true,
      claim: {
        subject: payer.publicKey,
        object: receiptDigest(decodeSettlementReceipt(receipt)),
        quantity: { currency: "USDC", amount: 2500n },
      },
    });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(payerBefore + 2500n);
    expect(running.merchantBalance("merchant:test", "USDC")).toBe(merchantBefore - 2500n);
    const listed = await fetchCborRevocations(running.url);
    expect(listed.map((r) => Buffer.from(r).toString("hex"))).toContain(
      Buffer.from(first.revocation).toString("hex"),
    );
    expect(isRevoked(receipt, listed, running.receiptKey)).toBe(true);
    expect(isRevoked(receipt, listed, createSigningKey("ed25519").publicKey)).toBe(false);

    expect(await requestCborRefund(running.url, receipt, merchant())).toMatchObject({
      ok: false,
      status: 409,
      error: "already_refunded",
    });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(payerBefore + 2500n);
    expect(running.merchantBalance("merchant:test", "USDC")).toBe(merchantBefore - 2500n);
    expect(running.calls.refund).toBeGreaterThanOrEqual(2);
  });

  it("POST /refund: a partial refund, and refusals that move nothing", async () => {
    const receipt = (await client.settleCbor(pay())).receipt!;
    const payerBefore = running.payerBalance(payer.publicKey, "USDC")!;
    expect(await requestCborRefund(running.url, receipt, merchant(2501n))).toMatchObject({
      status: 400,
      error: "invalid_refund",
    });
    expect(await requestCborRefund(running.url, receipt, merchant(0n))).toMatchObject({
      status: 400,
      error: "invalid_refund",
    });
    const forged = encodeSettlementReceipt(
      signReceipt(createSigningKey("ed25519"), decodeClaim(decodeSettlementReceipt(receipt).claim)),
    );
    expect(await requestCborRefund(running.url, forged, merchant())).toMatchObject({
      status: 400,
      error: "invalid_receipt",
    });
    // Signed with this facilitator's key (its seed is in the books) but not the receipt its books hold.
    const facilitatorKey = createSigningKey(
      "ed25519",
      Buffer.from(
        running.book.meta("receipt_key_seed", () => "set at start"),
        "hex",
      ),
    );
    expect(facilitatorKey.publicKey).toEqual(running.receiptKey);
    const reissued = encodeSettlementReceipt(
      signReceipt(facilitatorKey, decodeClaim(decodeSettlementReceipt(receipt).claim)),
    );
    expect(await requestCborRefund(running.url, reissued, merchant())).toMatchObject({
      status: 404,
      error: "unknown_receipt",
    });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(payerBefore);
    const junk = await fetch(`${running.url}/refund`, {
      method: "POST",
      headers: { "content-type": "application/x402+cbor", authorization: `Bearer ${running.merchantToken}` },
      body: Buffer.from("a1", "hex"),
    });
    expect(junk.status).toBe(400);
    const notCbor = await fetch(`${running.url}/refund`, { method: "POST", body: "{}" });
    expect(notCbor.status).toBe(415);
    expect(await requestCborRefund(running.url, receipt, merchant(1000n))).toMatchObject({ ok: true });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(payerBefore + 1000n);
    expect(await requestCborRefund(running.url, receipt, merchant(1000n))).toMatchObject({ status: 409 });
  });

  it("keeps balances, settlements and its receipt key across a restart", async () => {
    const balance = running.payerBalance(payer.publicKey, "USDC");
    const key = running.receiptKey;
    const settlements = running.book.settlements();
    await running.stop();
    running = await startCborFacilitator({
      file: join(dir, "books.sqlite"),
      accounts: [{ publicKey: payer.publicKey, balances: { USDC: 10_000n } }],
    });
    client = new HttpFacilitator({ url: running.url });
    expect(running.payerBalance(payer.publicKey, "USDC")).toBe(balance);
    expect(running.receiptKey).toEqual(key);
    expect(running.book.settlements()).toBe(settlements);
  });

  it("refuses a body that is not CBOR with 415, and the HTTP client classifies failures as for JSON", async () => {
    const json = await fetch(`${running.url}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    const broken = await listenOnLoopback((req, res) => {
      if (req.url === "/verify")
        res.writeHead(200, { "content-type": "application/x402+cbor" }).end(Buffer.from("ff", "hex"));
      else res.writeHead(503).end();
    });
    try {
      const bad = new HttpFacilitator({ url: broken.url });
      await expect(bad.verifyCbor(pay())).rejects.toMatchObject({
        code: "facilitator_error",
        details: { reason: "malformed" },
      });
      await expect(bad.settleCbor(pay())).rejects.toMatchObject({
        code: "facilitator_unavailable",
        details: { reason: "server_error" },
      });
    } finally {
      await broken.close();
    }
    const settled = await client.settleCbor(pay());
    expect(settled).toMatchObject({ success: true });
    const receipt = settled.receipt!;
    expect(decodeSettlementReceipt(receipt).signer).toEqual(running.receiptKey);
  });

  it("POST /humanity: the DEMO issuer signs an is_human claim for any subject, labelled as a demo", async () => {
    const supported = (await (await fetch(`${running.url}/supported`)).json()) as {
      humanityIssuer: { publicKey: string; label: string; notice: string };
    };
    expect(supported.humanityIssuer.publicKey).toBe(
      Buffer.from(demoHumanityIssuer().publicKey).toString("hex"),
    );
    expect(running.humanityIssuerKey).toEqual(demoHumanityIssuer().publicKey);
    expect(supported.humanityIssuer.notice).toMatch(/DEMO.*proves nothing/);
    for (const subject of [payer, pqPayer, createSigningKey("ed25519")]) {
      const claim = await requestDemoHumanityClaim(`${running.url}/humanity`, subject.publicKey);
      const check = {
        humanityClaim: claim,
        subject: subject.publicKey,
        trustedIssuers: [running.humanityIssuerKey],
        nowSeconds: Math.floor(Date.now() / 1000),
        skewSeconds: 0,
      };
      expect(checkHumanityClaim(check)).toBeUndefined();
      expect(decodeClaim(decodeSignedClaim(claim).claim).object).toBe(DEMO_HUMANITY_ISSUER_LABEL);
      // Valid for an hour, not longer.
      expect(checkHumanityClaim({ ...check, nowSeconds: check.nowSeconds + 3601 })?.code).toBe(
        "humanity_claim_expired",
      );
    }
    for (const body of [Buffer.from("ff", "hex"), Buffer.from(encodeHumanityRequest(new Uint8Array(31)))]) {
      const bad = await fetch(`${running.url}/humanity`, {
        method: "POST",
        headers: { "content-type": "application/x402+cbor" },
        body,
      });
      expect(bad.status).toBe(400);
      await bad.arrayBuffer();
    }
    await expect(requestDemoHumanityClaim(`${running.url}/nope`, payer.publicKey)).rejects.toThrow(/404/);
  });
});
