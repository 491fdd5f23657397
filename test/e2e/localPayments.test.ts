import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { encodeBase64Json } from "../../src/index.js";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { devAccount } from "../../src/dev/devAccounts.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";
import { signTransferAuthorization } from "../../src/dev/signTransferAuthorization.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { officialClient, recordingFetch, signOfficialPayment } from "./support/officialPayment.js";
import { PRICE, startPaidApp, type PaidApp } from "./support/startPaidApp.js";

let stack: LocalStack;
let app: PaidApp;

/** A second payer (anvil account 4) that the /drain route empties between verification and settlement. */
const spender = devAccount(4);
const sink = devAccount(6).address;

beforeAll(async () => {
  stack = await startLocalStack();
  app = await startPaidApp({ stack, drain: () => moveAllTokens(spender.privateKey, sink) });
  await moveTokens(stack.accounts.payer.privateKey, spender.address, PRICE.quote);
});

async function moveTokens(from: `0x${string}`, to: `0x${string}`, amount: bigint) {
  const wallet = createWalletClient({
    account: privateKeyToAccount(from),
    chain: stack.chain,
    transport: http(stack.rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: stack.token.address,
    abi: testUSDCAbi,
    functionName: "transfer",
    args: [to, amount],
  });
  const receipt = await stack.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 });
  if (receipt.status !== "success") throw new Error(`transfer failed: ${hash}`);
}

async function moveAllTokens(from: `0x${string}`, to: `0x${string}`) {
  await moveTokens(from, to, await stack.balanceOf(privateKeyToAccount(from).address));
}

afterAll(async () => {
  await app?.stop();
  await stack?.stop();
});

const payerAddress = () => stack.accounts.payer.address;
const payeeAddress = () => stack.accounts.payee.address;

async function balances() {
  return { payer: await stack.balanceOf(payerAddress()), payee: await stack.balanceOf(payeeAddress()) };
}

/** The official paying client, recording each PAYMENT-SIGNATURE it sends. */
function payingFetch(sent: string[] = [], schemes?: ("exact" | "exact-pq")[]) {
  return createPayingFetch({
    privateKey: stack.accounts.payer.privateKey,
    allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
    fetch: recordingFetch(sent),
    ...(schemes === undefined ? {} : { schemes }),
  }).fetch;
}

async function expectSettledOnChain(response: Response) {
  const header = response.headers.get("payment-response");
  expect(header).toBeTruthy();
  const receipt = decodePaymentResponseHeader(header!);
  expect(receipt).toMatchObject({ success: true, network: "eip155:31337", payer: payerAddress() });
  expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  const onChain = await stack.publicClient.getTransactionReceipt({
    hash: receipt.transaction as `0x${string}`,
  });
  expect(onChain.status).toBe("success");
  return receipt;
}

describe("end to end: official client → x402() → official facilitator → anvil", () => {
  it("pays a priced GET: 200, PAYMENT-RESPONSE with a mined transaction, balances move by the price", async () => {
    const before = await balances();
    const hits = app.hits.quote;
    const response = await payingFetch()(`${app.url}/quote`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ pair: "ETH/USDC", price: "3150.25" });
    await expectSettledOnChain(response);
    expect(app.hits.quote).toBe(hits! + 1);
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("pays a priced POST with a JSON body (money-string price via `assets`)", async () => {
    const before = await balances();
    const response = await payingFetch()(`${app.url}/order`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ item: "coffee", quantity: 2 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ orderId: "ord_1", received: { item: "coffee", quantity: 2 } });
    await expectSettledOnChain(response);
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.order,
      payee: before.payee + PRICE.order,
    });
  });

  it("refuses the captured PAYMENT-SIGNATURE sent again: 402 payment_already_used, no second transfer", async () => {
    const sent: string[] = [];
    const first = await payingFetch(sent)(`${app.url}/quote`);
    expect(first.status).toBe(200);
    expect(sent).toHaveLength(1);
    const before = await balances();
    const hits = app.hits.quote;
    const settles = stack.facilitator.calls.settle;

    const replay = await fetch(`${app.url}/quote`, { headers: { "PAYMENT-SIGNATURE": sent[0]! } });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error: string }).error).toBe("payment_already_used");
    expect(app.hits.quote).toBe(hits);
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await balances()).toEqual(before);
  });

  it("8 concurrent requests with the same fresh payment: one 2xx, one transfer, one upstream hit", async () => {
    const client = officialClient(stack.accounts.payer.privateKey, stack.token.address);
    const { header } = await signOfficialPayment(client, `${app.url}/quote`);
    const before = await balances();
    const hits = app.hits.quote;
    const settles = stack.facilitator.calls.settle;

    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        fetch(`${app.url}/quote`, { headers: { "PAYMENT-SIGNATURE": header } }),
      ),
    );
    const bodies = await Promise.all(responses.map(async (r) => (await r.json()) as { error?: string }));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((status) => status >= 200 && status < 300)).toHaveLength(1);
    const refused = bodies.filter((_body, i) => statuses[i] !== 200).map((body) => body.error);
    expect(refused).toHaveLength(7);
    for (const code of refused) expect(["payment_in_progress", "payment_already_used"]).toContain(code);
    expect(app.hits.quote).toBe(hits! + 1);
    expect(stack.facilitator.calls.settle).toBe(settles + 1);
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("does not settle when the upstream answers 500; the same payment then pays a healthy route", async () => {
    const sent: string[] = [];
    const before = await balances();
    const settles = stack.facilitator.calls.settle;
    const broken = await payingFetch(sent)(`${app.url}/broken`);
    expect(broken.status).toBe(500);
    expect(broken.headers.get("payment-response")).toBeNull();
    expect(app.hits.broken).toBe(1);
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await balances()).toEqual(before);

    expect(sent).toHaveLength(1);
    const healthy = await fetch(`${app.url}/quote`, { headers: { "PAYMENT-SIGNATURE": sent[0]! } });
    expect(healthy.status).toBe(200);
    await expectSettledOnChain(healthy);
    expect(await balances()).toEqual({
      payer: before.payer - PRICE.quote,
      payee: before.payee + PRICE.quote,
    });
  });

  it("offer with exact-pq and exact: a client that only knows exact picks exact and pays", async () => {
    const offer = await fetch(`${app.url}/both`);
    expect(offer.status).toBe(402);
    const { accepts } = (await offer.json()) as { accepts: { scheme: string }[] };
    expect(accepts.map((option) => option.scheme)).toEqual(["exact-pq", "exact"]);

    const sent: string[] = [];
    const before = await balances();
    const response = await payingFetch(sent, ["exact"])(`${app.url}/both`);
    expect(response.status).toBe(200);
    await expectSettledOnChain(response);
    const paid = JSON.parse(Buffer.from(sent[0]!, "base64").toString("utf8")) as {
      accepted: { scheme: string };
    };
    expect(paid.accepted.scheme).toBe("exact");
    expect(await balances()).toEqual({ payer: before.payer - PRICE.both, payee: before.payee + PRICE.both });
  });

  it("offer with exact-pq and exact: a client that also knows exact-pq pays with exact-pq (listed first)", async () => {
    const sent: string[] = [];
    const before = await balances();
    const response = await payingFetch(sent, ["exact", "exact-pq"])(`${app.url}/both`);
    expect(response.status).toBe(200);
    await expectSettledOnChain(response);
    const paid = JSON.parse(Buffer.from(sent[0]!, "base64").toString("utf8")) as {
      accepted: { scheme: string };
    };
    expect(paid.accepted.scheme).toBe("exact-pq");
    expect(await balances()).toEqual({ payer: before.payer - PRICE.both, payee: before.payee + PRICE.both });
  });

  it("rejects an expired authorization (validBefore in the past) with the facilitator's reason, no transfer", async () => {
    const offer = await fetch(`${app.url}/quote`);
    const { accepts } = (await offer.json()) as { accepts: Record<string, unknown>[] };
    const accepted = accepts[0]!;
    const payload = await signTransferAuthorization({
      account: privateKeyToAccount(stack.accounts.payer.privateKey),
      token: stack.token,
      chainId: 31337,
      to: payeeAddress(),
      value: PRICE.quote,
      validBefore: BigInt(Math.floor(Date.now() / 1000) - 60),
    });
    const before = await balances();
    const hits = app.hits.quote;
    const response = await fetch(`${app.url}/quote`, {
      headers: { "PAYMENT-SIGNATURE": encodeBase64Json({ x402Version: 2, accepted, payload }) },
    });
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error: string; details: { reason?: string } };
    expect(body.error).toBe("verification_failed");
    expect(body.details.reason).toBe("invalid_exact_evm_payload_authorization_valid_before");
    expect(app.hits.quote).toBe(hits);
    expect(await balances()).toEqual(before);
  });

  it("settlement fails after a 2xx (the payer spent the funds meanwhile): 402 settlement_failed, body withheld", async () => {
    const sent: string[] = [];
    const paying = createPayingFetch({
      privateKey: spender.privateKey,
      allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }],
      fetch: recordingFetch(sent),
    });
    const payee = await stack.balanceOf(payeeAddress());
    expect(await stack.balanceOf(spender.address)).toBe(PRICE.quote);

    const response = await paying.fetch(`${app.url}/drain`);
    expect(app.hits.drain).toBe(1);
    expect(response.status).toBe(402);
    const text = await response.text();
    expect(text).not.toContain("only for paid requests");
    expect((JSON.parse(text) as { error: string }).error).toBe("settlement_failed");
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: false, errorReason: "invalid_exact_evm_insufficient_balance" });
    expect(await stack.balanceOf(payeeAddress())).toBe(payee);
    expect(await stack.balanceOf(sink)).toBe(PRICE.quote);
  });
});
