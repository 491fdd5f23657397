import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { evmIntentKey } from "../../src/payer/evmIntentKey.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { payerIdOfClaim } from "../../src/protocol/cbor/payerIdOfClaim.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";
import { expectEvmIntentPays } from "../support/expectEvmIntentPays.js";
import { expectForgeriesRefused } from "../support/signerForgeries.js";

const MERCHANT = "merchant:evm";
const PRICE = 3_000n;
const OPENING = 1_000_000n;
const CHAIN_ID = 31337;
/** anvil's dev account 1 (public test key). */
const anvilKey = devAccount(1);

let facilitator: RunningCborFacilitator;
const settledAddresses: string[] = [];

/** Each intent its own second, so that one key answering one offer twice signs two intents. */
let tick = 0;
const now = () => Date.now();
const time = () => now() + 1000 * tick++;

const eoa = (chainId = CHAIN_ID) => evmIntentKey({ privateKey: anvilKey.privateKey, chainId });
const balanceOf = (key: Pick<IntentKey, "publicKey" | "signer">) =>
  facilitator.book.payerBalance(payerIdOfClaim({ subject: key.publicKey, signer: key.signer }), "USDC");

beforeAll(async () => {
  const key = await eoa();
  facilitator = await startCborFacilitator({
    accounts: [{ publicKey: key.publicKey, signer: "evm", balances: { USDC: OPENING } }],
    onSettled: ({ evmAddress }) => void (evmAddress !== undefined && settledAddresses.push(evmAddress)),
  });
}, 60_000);
afterAll(() => facilitator?.stop());

describe.each(CBOR_TARGET_KINDS)("EvmSigner through %s", (kind) => {
  let target: CborTarget;
  beforeAll(async () => {
    const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
    target = await startCborTarget(
      kind,
      {
        facilitator: { url: facilitator.url },
        payTo: "0x000000000000000000000000000000000000dEaD",
        network: `eip155:${CHAIN_ID}`,
        cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
        routes: {
          "GET /quote": { cbor: { ...cbor, signers: ["ServiceAuthSigner", "EvmSigner"] } },
          "GET /default": { cbor },
        },
      },
      now,
    );
  });
  afterAll(() => target?.stop());

  it("an EOA's EIP-712 intent pays: one debit, one credit, a receipt whose subject is ['evm', address]", async () => {
    // The address recognition records is the EVM address the intent is bound to.
    const key = await eoa();
    await expectEvmIntentPays(target, facilitator, key, {
      address: anvilKey.address,
      price: PRICE,
      merchant: MERCHANT,
      balance: () => balanceOf(key),
      recorded: () => settledAddresses,
      now: time,
    });
  });

  it("a tampered signature, another chain's, another address's, or a malformed one: 402 signer_rpc_not_configured (no rpcUrls: no contract wallet can be asked), nothing debited", async () => {
    const honest = await eoa();
    const otherChain = await eoa(1);
    const stranger = await evmIntentKey({ privateKey: generatePrivateKey(), chainId: CHAIN_ID });
    // Another key's signature presented for the anvil address, and one over another chain's domain.
    await expectForgeriesRefused(target, facilitator, honest, {
      tamperByte: 40,
      others: [otherChain, stranger],
      malformed: new Uint8Array(64),
      balance: () => balanceOf(honest),
      now: time,
      code: "signer_rpc_not_configured",
    });
  });

  it("a route with the default backends refuses an EVM intent: 402 signer_not_accepted", async () => {
    const key = await eoa();
    const before = balanceOf(key);
    const paid = await payCborRoute(`${target.url}/default`, { key, now: time });
    expect(paid.response.status).toBe(402);
    expect(paid.response.headers.get("x402-error")).toBe("signer_not_accepted");
    expect(balanceOf(key)).toBe(before);
  });
});
