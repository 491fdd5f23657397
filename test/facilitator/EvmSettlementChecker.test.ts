import { bytesToHex, createWalletClient, getAddress, http, parseSignature, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { signTransferAuthorization } from "../../src/dev/signTransferAuthorization.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";
import { EvmSettlementChecker } from "../../src/facilitator/EvmSettlementChecker.js";
import type { PaymentPayload, PaymentRequirements } from "../../src/protocol/schemas.js";

const PRICE = 10_000n;
let stack: LocalStack;
let requirements: PaymentRequirements;
const sink = devAccount(6).address;

beforeAll(async () => {
  stack = await startLocalStack();
  requirements = {
    scheme: "exact",
    network: "eip155:31337",
    amount: PRICE.toString(),
    asset: stack.token.address,
    payTo: stack.accounts.payee.address,
    maxTimeoutSeconds: 300,
    extra: { name: stack.token.name, version: stack.token.version },
  };
});

afterAll(async () => {
  await stack?.stop();
});

const payerAccount = () => privateKeyToAccount(stack.accounts.payer.privateKey);
const checker = (now = Date.now()) =>
  new EvmSettlementChecker({ rpcUrls: { "eip155:31337": stack.rpcUrl }, now: () => now });

async function authorize(to: Hex, options: { nonce?: Hex; validBefore?: bigint } = {}) {
  return signTransferAuthorization({
    account: payerAccount(),
    token: stack.token,
    chainId: 31337,
    to,
    value: PRICE,
    validBefore: options.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 600),
    nonce: options.nonce,
  });
}

const paymentOf = (signed: Awaited<ReturnType<typeof authorize>>): PaymentPayload => ({
  x402Version: 2,
  accepted: requirements,
  payload: { ...signed },
});

/** Submit an authorization on chain (as a facilitator would), from anvil account 0. */
async function submit(signed: Awaited<ReturnType<typeof authorize>>): Promise<Hex> {
  const wallet = createWalletClient({
    account: privateKeyToAccount(stack.accounts.facilitator.privateKey),
    chain: stack.chain,
    transport: http(stack.rpcUrl),
  });
  const { from, to, value, validAfter, validBefore, nonce } = signed.authorization;
  const { v, r, s } = parseSignature(signed.signature);
  const hash = await wallet.writeContract({
    address: stack.token.address,
    abi: testUSDCAbi,
    functionName: "transferWithAuthorization",
    args: [from, to, BigInt(value), BigInt(validAfter), BigInt(validBefore), nonce, Number(v), r, s],
  });
  await stack.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

describe("EvmSettlementChecker on anvil (issue 15, item 6)", () => {
  it("unused and still valid: pending (the facilitator's transaction may still land)", async () => {
    expect(
      await checker().check(paymentOf(await authorize(requirements.payTo as Hex)), requirements),
    ).toMatchObject({
      state: "pending",
    });
  });

  it("unused after validBefore: not settled, safe to release", async () => {
    const signed = await authorize(requirements.payTo as Hex, {
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 60),
    });
    expect(await checker(Date.now() + 120_000).check(paymentOf(signed), requirements)).toMatchObject({
      state: "not_settled",
      reason: expect.stringContaining("expired"),
    });
  });

  it("used to pay the payee: settled, naming the transaction", async () => {
    const signed = await authorize(requirements.payTo as Hex);
    const hash = await submit(signed);
    expect(await checker().check(paymentOf(signed), requirements)).toEqual({
      state: "settled",
      transaction: hash,
    });
  });

  it("cancelled by the payer (authorizationState is true too): not settled", async () => {
    const signed = await authorize(requirements.payTo as Hex);
    const nonce = signed.authorization.nonce;
    const account = payerAccount();
    const signature = await account.signTypedData({
      domain: {
        name: stack.token.name,
        version: stack.token.version,
        chainId: 31337,
        verifyingContract: getAddress(stack.token.address),
      },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: account.address, nonce },
    });
    const { v, r, s } = parseSignature(signature);
    const wallet = createWalletClient({ account, chain: stack.chain, transport: http(stack.rpcUrl) });
    const hash = await wallet.writeContract({
      address: stack.token.address,
      abi: testUSDCAbi,
      functionName: "cancelAuthorization",
      args: [account.address, nonce, Number(v), r, s],
    });
    expect((await stack.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await checker().check(paymentOf(signed), requirements)).toMatchObject({
      state: "not_settled",
      reason: expect.stringContaining("cancelled"),
    });
  });

  it("the same nonce used by another authorization (to someone else): not settled", async () => {
    const nonce = bytesToHex(randomBytes(32));
    const ours = await authorize(requirements.payTo as Hex, { nonce });
    await submit(await authorize(sink, { nonce }));
    expect(await checker().check(paymentOf(ours), requirements)).toMatchObject({
      state: "not_settled",
      reason: expect.stringContaining("another transfer"),
    });
  });

  it("covers only the networks it has an RPC for, and says pending when the RPC is down", async () => {
    const down = new EvmSettlementChecker({
      rpcUrls: { "eip155:31337": "http://127.0.0.1:9" },
      timeoutMs: 500,
    });
    expect(down.covers("eip155:31337")).toBe(true);
    expect(down.covers("eip155:8453")).toBe(false);
    expect(
      await down.check(paymentOf(await authorize(requirements.payTo as Hex)), requirements),
    ).toMatchObject({
      state: "pending",
    });
  });
});
