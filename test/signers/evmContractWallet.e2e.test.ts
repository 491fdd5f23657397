import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployTestSmartWallet } from "../../src/dev/deployTestSmartWallet.js";
import { devAccount } from "../../src/dev/devAccounts.js";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { startAnvil, type AnvilNode } from "../../src/dev/startAnvil.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { evmIntentKey } from "../../src/payer/evmIntentKey.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { payerIdOfClaim } from "../../src/protocol/cbor/payerIdOfClaim.js";
import {
  CBOR_TARGET_KINDS,
  startCborTarget,
  type CborTarget,
  type CborTargetSettings,
} from "../support/cborTargets.js";
import { expectEvmIntentPays } from "../support/expectEvmIntentPays.js";
import { refusalCode } from "../support/refusalCode.js";
import { expectForgeriesRefused } from "../support/signerForgeries.js";

const MERCHANT = "merchant:evm-wallet";
const PRICE = 2_500n;
const OPENING = 1_000_000n;
const CHAIN_ID = 31337;
const NETWORK = `eip155:${CHAIN_ID}` as const;
/** anvil's dev accounts (public test keys): 0 deploys, 3 owns the wallet. */
const deployer = devAccount(0);
const owner = devAccount(3);

let anvil: AnvilNode;
let facilitator: RunningCborFacilitator;
/** The TestSmartWallet owned by `owner`: the subject of the intents. */
let wallet: `0x${string}`;
const settledAddresses: string[] = [];

/** Each intent its own second, so that one key answering one offer twice signs two intents. */
let tick = 0;
const now = () => Date.now();
const time = () => now() + 1000 * tick++;

/** The wallet's signer: `privateKey` signs the intent's EIP-712 digest with the wallet as payer. */
const walletKey = (privateKey = owner.privateKey, chainId = CHAIN_ID) =>
  evmIntentKey({ privateKey, chainId, wallet });
const balanceOf = (key: Pick<IntentKey, "publicKey" | "signer">) =>
  facilitator.book.payerBalance(payerIdOfClaim({ subject: key.publicKey, signer: key.signer }), "USDC");

function settings(rpcUrls: Record<string, string>): CborTargetSettings {
  const cbor = { currency: "USDC" as const, amount: PRICE.toString(), signers: ["EvmSigner" as const] };
  return {
    facilitator: { url: facilitator.url },
    payTo: "0x000000000000000000000000000000000000dEaD",
    network: NETWORK,
    rpcUrls,
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
    routes: { "GET /quote": { cbor } },
  };
}

/** Pays `/quote` with `key` and expects `status` / `code` with nothing debited, settled or served. */
async function expectRefused(target: CborTarget, key: IntentKey, status: number, code: string) {
  const before = balanceOf(key);
  const settled = facilitator.book.settlements();
  const served = target.served("/quote");
  const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
  expect(paid.response.status).toBe(status);
  expect(await refusalCode(paid.response.clone())).toBe(code);
  expect(balanceOf(key)).toBe(before);
  expect(facilitator.book.settlements()).toBe(settled);
  expect(target.served("/quote")).toBe(served);
  return paid.response;
}

beforeAll(async () => {
  anvil = await startAnvil();
  wallet = await deployTestSmartWallet({
    rpcUrl: anvil.rpcUrl,
    chain: anvil.chain,
    publicClient: anvil.publicClient,
    deployerPrivateKey: deployer.privateKey,
    owner: owner.address,
  });
  const key = await walletKey();
  facilitator = await startCborFacilitator({
    evmChainId: CHAIN_ID,
    evmRpcUrl: anvil.rpcUrl,
    accounts: [{ publicKey: key.publicKey, signer: "evm", balances: { USDC: OPENING } }],
    onSettled: ({ evmAddress }) => void (evmAddress !== undefined && settledAddresses.push(evmAddress)),
  });
}, 60_000);
afterAll(async () => {
  await facilitator?.stop();
  await anvil?.stop();
});

it("the local CBOR facilitator given the chain's node says at /supported that it checks contract wallets", async () => {
  const supported = (await (await fetch(`${facilitator.url}/supported`)).json()) as {
    signers: { EvmSigner: { chainId: number; contractWallets: boolean } };
  };
  expect(supported.signers.EvmSigner).toEqual({ chainId: CHAIN_ID, contractWallets: true });
});

describe.each(CBOR_TARGET_KINDS)("EvmSigner, an EIP-1271 contract wallet, through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, settings({ [NETWORK]: anvil.rpcUrl }), now);
  });
  afterAll(() => target?.stop());

  it("the owner's EIP-712 signature for the wallet pays: one debit, one credit, the wallet's address recorded", async () => {
    // What recognition records: the EVM address the intent is bound to, the wallet's (not the owner's).
    const key = await walletKey();
    await expectEvmIntentPays(target, facilitator, key, {
      address: wallet,
      price: PRICE,
      merchant: MERCHANT,
      balance: () => balanceOf(key),
      recorded: () => settledAddresses,
      now: time,
    });
  });

  it("another key than the owner, a tampered signature, another chain's or a malformed one: 402 verification_failed, nothing moved", async () => {
    const honest = await walletKey();
    const stranger = await walletKey(generatePrivateKey());
    const otherChain = await walletKey(owner.privateKey, 1);
    await expectForgeriesRefused(target, facilitator, honest, {
      tamperByte: 40,
      others: [stranger, otherChain],
      malformed: new Uint8Array(64),
      balance: () => balanceOf(honest),
      now: time,
    });
  });

  it("an address with no contract and no matching key: 402 verification_failed", async () => {
    const empty = await evmIntentKey({
      privateKey: owner.privateKey,
      chainId: CHAIN_ID,
      wallet: "0x00000000000000000000000000000000000f00d5",
    });
    await expectRefused(target, empty, 402, "verification_failed");
  });
});

describe.each(CBOR_TARGET_KINDS)("EvmSigner with the EVM node down, through %s", (kind) => {
  let target: CborTarget;
  let dead: string;
  beforeAll(async () => {
    dead = `http://127.0.0.1:${await findFreePort("127.0.0.1")}`;
    target = await startCborTarget(kind, settings({ [NETWORK]: dead }), now);
  });
  afterAll(() => target?.stop());

  it("a contract wallet's payment fails closed: 503 signer_unavailable with Retry-After, the node's address not told", async () => {
    const response = await expectRefused(target, await walletKey(), 503, "signer_unavailable");
    const told = Buffer.from(await response.arrayBuffer()).toString("latin1");
    expect(told).not.toContain(new URL(dead).host);
    expect(told).not.toMatch(/ECONNREFUSED|fetch failed|HTTP request failed/i);
    expect(response.headers.get("retry-after")).not.toBeNull();
  });

  it("an EOA still pays (it needs no node)", async () => {
    const key = await evmIntentKey({ privateKey: owner.privateKey, chainId: CHAIN_ID });
    facilitator.book.openAccount(payerIdOfClaim({ subject: key.publicKey, signer: "evm" }), "USDC", OPENING);
    const before = balanceOf(key)!;
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: time });
    expect(paid.response.status).toBe(200);
    expect(balanceOf(key)).toBe(before - PRICE);
  });
});

describe.each(CBOR_TARGET_KINDS)("EvmSigner without an rpcUrl for the network, through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    target = await startCborTarget(kind, settings({}), now);
  });
  afterAll(() => target?.stop());

  it("a contract wallet's payment: 402 signer_rpc_not_configured, nothing moved", async () => {
    await expectRefused(target, await walletKey(), 402, "signer_rpc_not_configured");
  });
});
