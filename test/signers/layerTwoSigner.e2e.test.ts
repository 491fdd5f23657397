import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import {
  STAND_IN_CHAIN_NAME,
  startStarknetStandIn,
  type RunningStarknetStandIn,
} from "../../src/dev/startStarknetStandIn.js";
import { starknetAccountOf, type StarknetDevAccount } from "../../src/dev/starknetDevAccounts.js";
import { findFreePort } from "../../src/dev/findFreePort.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { starknetIntentKey } from "../../src/payer/starknetIntentKey.js";
import { payerIdOfClaim } from "../../src/protocol/cbor/payerIdOfClaim.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";
import { refusalCode } from "../support/refusalCode.js";
import { expectForgeriesRefused } from "../support/signerForgeries.js";

const MERCHANT = "merchant:layer-two";
const PRICE = 4_000n;
const OPENING = 1_000_000n;
const CHAIN = STAND_IN_CHAIN_NAME;

let node: RunningStarknetStandIn;
let facilitator: RunningCborFacilitator;
let account: StarknetDevAccount;
/** A fresh key whose account is deployed during the test run. */
let fresh: StarknetDevAccount;
/** A Stark key paying for itself (no account): verified offline. */
const directKey = starknetAccountOf("0x5ca1ab1e");

/** Each intent its own second, so that one key answering one offer twice signs two intents. */
let tick = 0;
const now = () => Date.now();
const time = () => now() + 1000 * tick++;

/** The dev account's signer (on another chain's domain when `chainId` says so). */
const accountKey = (chainId = CHAIN) =>
  starknetIntentKey({ privateKey: account.privateKey, account: account.address, chainId });
const directStarkKey = () => starknetIntentKey({ privateKey: directKey.privateKey, chainId: CHAIN });

function balanceOf(key: IntentKey): bigint | undefined {
  return facilitator.book.payerBalance(
    payerIdOfClaim({ subject: key.publicKey, signer: key.signer }),
    "USDC",
  );
}

beforeAll(async () => {
  node = await startStarknetStandIn();
  account = node.devAccounts[0]!;
  fresh = starknetAccountOf("0x7e57ab1e");
  node.deployAccount(fresh.publicKey);
  const keys = [
    await accountKey(),
    await starknetIntentKey({ privateKey: fresh.privateKey, account: fresh.address, chainId: CHAIN }),
    await directStarkKey(),
  ];
  facilitator = await startCborFacilitator({
    layerTwo: { chainId: CHAIN, rpcUrl: node.url },
    accounts: keys.map((key) => ({
      publicKey: key.publicKey,
      signer: key.signer,
      balances: { USDC: OPENING },
    })),
  });
}, 60_000);
afterAll(async () => {
  await facilitator?.stop();
  await node?.stop();
});

function settings(layerTwoRpcUrl: string) {
  const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
  return {
    facilitator: { url: facilitator.url },
    // No JSON price on these routes: payTo and network are only what the options require.
    payTo: "0x000000000000000000000000000000000000dEaD",
    network: "eip155:31337" as const,
    cbor: {
      merchantPseudonym: MERCHANT,
      facilitator: { url: facilitator.url },
      layerTwo: { chainId: CHAIN, rpcUrl: layerTwoRpcUrl },
    },
    routes: {
      "GET /quote": { cbor },
      "GET /keys-only": { cbor: { ...cbor, signers: ["ServiceAuthSigner" as const] } },
    },
  };
}

describe.each(CBOR_TARGET_KINDS)("LayerTwoSigner through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, settings(node.url), now);
  });
  afterAll(() => target?.stop());

  it("a Starknet contract account's SNIP-12 intent pays: one debit, one credit, a valid receipt", async () => {
    const key = await accountKey();
    const before = { payer: balanceOf(key)!, merchant: facilitator.merchantBalance(MERCHANT, "USDC") };
    const settled = facilitator.book.settlements();
    const callsBefore = node.calls.get("starknet_call") ?? 0;
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(200);
    expect(target.served("/quote")).toBeGreaterThan(0);
    expect(facilitator.book.settlements()).toBe(settled + 1);
    expect(balanceOf(key)).toBe(before.payer - PRICE);
    expect(facilitator.merchantBalance(MERCHANT, "USDC")).toBe(before.merchant + PRICE);
    expect(verifyReceipt(paid.receipt!, facilitator.receiptKey).valid).toBe(true);
    // The gateway and the facilitator each asked the account (is_valid_signature via starknet_call).
    expect((node.calls.get("starknet_call") ?? 0) - callsBefore).toBeGreaterThanOrEqual(2);
  });

  it("an account deployed for a fresh key pays too", async () => {
    const key = await starknetIntentKey({
      privateKey: fresh.privateKey,
      account: fresh.address,
      chainId: CHAIN,
    });
    const before = balanceOf(key)!;
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(200);
    expect(balanceOf(key)).toBe(before - PRICE);
  });

  it("a direct Stark key pays, verified offline", async () => {
    const key = await directStarkKey();
    const before = balanceOf(key)!;
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(200);
    expect(balanceOf(key)).toBe(before - PRICE);
  });

  it("a tampered signature, another key's, or another chain's is refused 402 verification_failed, nothing debited", async () => {
    const honest = await accountKey();
    const otherKey = await starknetIntentKey({
      privateKey: fresh.privateKey,
      account: fresh.address,
      chainId: CHAIN,
    });
    const otherChain = await accountKey("SN_MAIN");
    // The fresh key's signature presented for the dev account, and one over another chain's domain.
    await expectForgeriesRefused(target, facilitator, honest, {
      tamperByte: 63,
      others: [otherKey, otherChain],
      malformed: new Uint8Array(31),
      balance: () => balanceOf(honest),
      now: time,
    });
  });

  it("a route that accepts only ServiceAuthSigner refuses a layer-2 intent: 402 signer_not_accepted", async () => {
    const key = await directStarkKey();
    const before = balanceOf(key);
    const paid = await payCborRoute(`${target.url}/keys-only`, { key, now: time });
    expect(paid.response.status).toBe(402);
    expect(paid.response.headers.get("x402-error")).toBe("signer_not_accepted");
    expect(balanceOf(key)).toBe(before);
  });

  it("an intent of an unbuilt backend (UTXO chain, another Ed25519 chain) is refused 402 signer_not_built", async () => {
    const unbuilt: IntentKey[] = [
      { publicKey: new Uint8Array(33).fill(2), signer: "utxo", sign: () => new Uint8Array(64) },
      { publicKey: new Uint8Array(32).fill(7), signer: "ed25519-chain", sign: () => new Uint8Array(64) },
    ];
    for (const key of unbuilt) {
      const settled = facilitator.book.settlements();
      const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
      expect(paid.response.status).toBe(402);
      expect(paid.response.headers.get("x402-error")).toBe("signer_not_built");
      expect(facilitator.book.settlements()).toBe(settled);
    }
  });
});

describe.each(CBOR_TARGET_KINDS)("LayerTwoSigner with its node down, through %s", (kind) => {
  let target: CborTarget;
  let dead: string;
  beforeAll(async () => {
    dead = `http://127.0.0.1:${await findFreePort("127.0.0.1")}`;
    target = await startCborTarget(kind, settings(dead), now);
  });
  afterAll(() => target?.stop());

  it("a contract account's payment fails closed: 503 signer_unavailable with Retry-After, nothing debited or served, the node's address not told", async () => {
    const key = await accountKey();
    const before = balanceOf(key);
    const settled = facilitator.book.settlements();
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(503);
    const told = Buffer.from(await paid.response.clone().arrayBuffer()).toString("latin1");
    expect(told).not.toContain(new URL(dead).host);
    expect(await refusalCode(paid.response)).toBe("signer_unavailable");
    expect(paid.response.headers.get("retry-after")).not.toBeNull();
    expect(balanceOf(key)).toBe(before);
    expect(facilitator.book.settlements()).toBe(settled);
    expect(target.served("/quote")).toBe(0);
  });

  it("a direct Stark key still pays (it needs no node)", async () => {
    const key = await directStarkKey();
    const before = balanceOf(key)!;
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(200);
    expect(balanceOf(key)).toBe(before - PRICE);
  });
});
