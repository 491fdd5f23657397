import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { fetchCborRevocations, requestCborRefund } from "../../src/dev/requestCborRefund.js";
import { HttpFacilitator } from "../../src/facilitator/HttpFacilitator.js";
import { createCborPayment } from "../../src/payer/createCborPayment.js";
import { issueCborRequest } from "../../src/pricing/cborPaymentRequests.js";
import { resolveCborOffer } from "../../src/pricing/resolveCborOffer.js";
import { encodeCborRefundRequest } from "../../src/protocol/cbor/facilitatorMessages.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { runCli } from "../cli/support/runCli.js";

// Issue 31, item 5: a refund is the merchant's act. The payer holds the receipt (PAYMENT-RESPONSE), so a
// receipt alone must move nothing: a payer who was served used to refund itself, 9100 → 10000.
const offer = resolveCborOffer(
  "GET /api/report",
  { currency: "USDC", amount: "900", merchantPseudonym: "merchant:test" },
  { deadlineSeconds: 300 },
);
const payer = createSigningKey("ed25519");
let running: RunningCborFacilitator;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cbor-refund-"));
  running = await startCborFacilitator({
    accounts: [{ publicKey: payer.publicKey, balances: { USDC: 10_000n } }],
  });
});

afterAll(async () => {
  await running.stop();
  await rm(dir, { recursive: true, force: true });
});

let tick = 0;

/** The payer pays 900 and is served: the receipt is in its hands. */
async function paidReceipt(): Promise<Uint8Array> {
  const issued = issueCborRequest(offer, Date.now());
  // Each payment a second apart: another intent, not a replay of the first.
  const signedAt = Date.now() + 1000 * tick++;
  const payment = createCborPayment({ offer: issued.bytes, key: payer, now: () => signedAt });
  const settled = await new HttpFacilitator({ url: running.url }).settleCbor({
    paymentRequest: issued.bytes,
    paymentSignature: payment.bytes,
  });
  expect(settled.success).toBe(true);
  return settled.receipt!;
}

const balances = () => ({
  payer: running.payerBalance(payer.publicKey, "USDC"),
  merchant: running.merchantBalance("merchant:test", "USDC"),
});

describe("POST /refund on the local CBOR facilitator is the merchant's act", () => {
  it("a payer holding the receipt gets 401 merchant_unauthorized, and nothing moves", async () => {
    const receipt = await paidReceipt();
    expect(balances()).toEqual({ payer: 9100n, merchant: 900n });
    const body = Buffer.from(encodeCborRefundRequest({ receipt }));
    const attempts: Record<string, string | undefined> = {
      "no credential": undefined,
      "a wrong token": `Bearer ${"0".repeat(64)}`,
      "the token with one character changed": `Bearer ${running.merchantToken.slice(0, -1)}${running.merchantToken.endsWith("0") ? "1" : "0"}`,
      "a prefix of the token": `Bearer ${running.merchantToken.slice(0, 32)}`,
      "Basic with the token": `Basic ${Buffer.from(`merchant:${running.merchantToken}`).toString("base64")}`,
      "the token without its scheme": running.merchantToken,
      "the receipt as a token": `Bearer ${Buffer.from(receipt).toString("base64")}`,
      "an empty bearer": "Bearer ",
    };
    for (const [what, authorization] of Object.entries(attempts)) {
      const answer = await fetch(`${running.url}/refund`, {
        method: "POST",
        headers: {
          "content-type": "application/x402+cbor",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body,
      });
      expect(answer.status, what).toBe(401);
      expect(answer.headers.get("www-authenticate"), what).toMatch(/^Bearer /);
      expect(await answer.json(), what).toMatchObject({ error: "merchant_unauthorized" });
    }
    expect(await requestCborRefund(running.url, receipt)).toMatchObject({
      ok: false,
      status: 401,
      error: "merchant_unauthorized",
    });
    expect(balances()).toEqual({ payer: 9100n, merchant: 900n });
    expect(await fetchCborRevocations(running.url)).toEqual([]);

    // The merchant, with its token: the payer is credited back once.
    const refunded = await requestCborRefund(running.url, receipt, { merchantToken: running.merchantToken });
    expect(refunded.ok).toBe(true);
    expect(balances()).toEqual({ payer: 10_000n, merchant: 0n });
    expect(await fetchCborRevocations(running.url)).toHaveLength(1);
  });

  it("a merchant token is at least 32 characters, without white space", async () => {
    await expect(startCborFacilitator({ merchantToken: "short" })).rejects.toThrow(/at least 32 characters/);
    await expect(startCborFacilitator({ merchantToken: `${"a".repeat(32)} b` })).rejects.toThrow(
      /without white space/,
    );
  });
});

describe("npm run refund acts as the merchant (its owner-only token file)", { timeout: 120_000 }, () => {
  it("refunds with the token file; without it, with a readable one, or with a wrong token, nothing moves", async () => {
    const receipt = Buffer.from(await paidReceipt()).toString("base64");
    const before = balances();
    const tokenFile = join(dir, "cbor-merchant.token");
    const loose = join(dir, "loose.token");
    const wrong = join(dir, "wrong.token");
    await writeFile(tokenFile, `${running.merchantToken}\n`, { mode: 0o600 });
    await writeFile(loose, `${running.merchantToken}\n`, { mode: 0o600 });
    await chmod(loose, 0o644);
    await writeFile(wrong, `${"f".repeat(64)}\n`, { mode: 0o600 });
    const refund = (...flags: string[]) =>
      runCli("src/dev/refund.ts", ["--facilitator", running.url, ...flags, receipt]);

    const [missing, readable, refused] = await Promise.all([
      refund("--merchant-token-file", join(dir, "missing.token")),
      refund("--merchant-token-file", loose),
      refund("--merchant-token-file", wrong),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the merchant token file .*missing\.token: ENOENT/);
    expect(readable.code).toBe(2);
    expect(readable.stderr).toMatch(/has mode 644: group and others must have no access/);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused: 401 merchant_unauthorized");
    expect(balances()).toEqual(before);

    const done = await refund("--merchant-token-file", tokenFile);
    expect(done.stdout).toMatch(/revocation: revokes sha256:[0-9a-f]{64}, refunded 900 USDC units/);
    expect(done.stdout).toContain("receipt revoked (GET /revocations, facilitator key from /supported): yes");
    expect(done.code).toBe(0);
    expect(balances()).toEqual({ payer: before.payer! + 900n, merchant: before.merchant - 900n });
  });
});
