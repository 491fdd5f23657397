import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";

/**
 * A pass bought with an `application/x402+cbor` payment: the signed receipt is left as it is, the token
 * comes in `PAYMENT-PASS` (and the cookie); a Bearer request then spends the pass's credits.
 */
const MERCHANT = "merchant:cbor-pass-test";
const key = createSigningKey("ed25519");
const PRICE = 2_500n;

let stack: LocalStack;
let cborFacilitator: RunningCborFacilitator;
let tick = 0;
const time = () => Math.floor(Date.now() / 1000) + tick++;

beforeAll(async () => {
  stack = await startLocalStack();
  cborFacilitator = await startCborFacilitator({
    accounts: [{ publicKey: key.publicKey, balances: { USDC: 1_000_000n } }],
  });
}, 60_000);
afterAll(async () => {
  await cborFacilitator?.stop();
  await stack?.stop();
});

describe.each(CBOR_TARGET_KINDS)("a CBOR-paid pass through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(
      kind,
      {
        facilitator: { url: stack.facilitatorUrl },
        cbor: { merchantPseudonym: MERCHANT, facilitator: { url: cborFacilitator.url } },
        payTo: stack.accounts.payee.address,
        network: stack.network,
        passes: { secret: "a-pass-secret-of-at-least-32-characters" },
        routes: {
          "GET /quote": { cbor: { currency: "USDC", amount: PRICE.toString() }, pass: { requests: 2 } },
        },
      },
      Date.now,
    );
  });
  afterAll(async () => target?.stop());

  it("pays once in CBOR, gets the token in PAYMENT-PASS, is served once more on it, then refused", async () => {
    const before = cborFacilitator.payerBalance(key.publicKey, "USDC");
    const served = target.served("/quote");
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: () => time() * 1000 });
    expect(paid.response.status).toBe(200);
    const token = paid.response.headers.get("payment-pass");
    expect(token).toMatch(/^xp1\./);
    expect(paid.response.headers.get("set-cookie")).toMatch(/^x402-pass=xp1\./);
    const again = await fetch(`${target.url}/quote`, { headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    const spent = await fetch(`${target.url}/quote`, { headers: { authorization: `Bearer ${token}` } });
    expect(spent.status).toBe(402);
    await spent.arrayBuffer();
    expect(target.served("/quote") - served).toBe(2);
    expect((before ?? 0n) - (cborFacilitator.payerBalance(key.publicKey, "USDC") ?? 0n)).toBe(PRICE);
  });
});
