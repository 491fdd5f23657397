import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { aliasClientScheme } from "../../src/payer/aliasClientScheme.js";
import { devAccount } from "../../src/dev/devAccounts.js";
import { signTransferAuthorization } from "../../src/dev/signTransferAuthorization.js";
import { startFacilitator } from "../../src/dev/startFacilitator.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack();
});

afterAll(async () => {
  await stack?.stop();
});

const payer = () => privateKeyToAccount(stack.accounts.payer.privateKey);

function requirements(scheme: "exact" | "exact-pq", amount = "1000000"): PaymentRequirements {
  return {
    scheme,
    network: "eip155:31337",
    amount,
    asset: stack.token.address,
    payTo: stack.accounts.payee.address,
    maxTimeoutSeconds: 120,
    extra: { name: stack.token.name, version: stack.token.version },
  };
}

function offer(...accepts: PaymentRequirements[]): PaymentRequired {
  return { x402Version: 2, resource: { url: "http://127.0.0.1/quote" }, accepts };
}

/** A payment made by the official x402 client (exact scheme, plus the exact-pq alias). */
async function officialPayment(paymentRequired: PaymentRequired): Promise<PaymentPayload> {
  const exact = new ExactEvmScheme(payer());
  const client = new x402Client()
    .register("eip155:*", exact)
    .register("eip155:*", aliasClientScheme(exact, "exact-pq"))
    .setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }] });
  return client.createPaymentPayload(paymentRequired);
}

async function post(path: "/verify" | "/settle", paymentPayload: unknown, paymentRequirements: unknown) {
  const response = await fetch(`${stack.facilitatorUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("the local facilitator (official @x402/core facilitator + @x402/evm exact)", () => {
  it("advertises exact and exact-pq on eip155:31337 with its signer", async () => {
    const response = await fetch(`${stack.facilitatorUrl}/supported`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { kinds: unknown[]; signers: Record<string, string[]> };
    expect(body.kinds).toEqual([
      { x402Version: 2, scheme: "exact", network: "eip155:31337" },
      { x402Version: 2, scheme: "exact-pq", network: "eip155:31337" },
    ]);
    expect(Object.values(body.signers).flat()).toContain(stack.accounts.facilitator.address);
  });

  it("verifies and settles an official client's exact payment on anvil", async () => {
    const required = requirements("exact");
    const payment = await officialPayment(offer(required));
    expect(payment.accepted.scheme).toBe("exact");
    const before = await stack.balanceOf(stack.accounts.payee.address);

    const verified = await post("/verify", payment, required);
    expect(verified).toEqual({ status: 200, body: { isValid: true, payer: stack.accounts.payer.address } });

    const settled = await post("/settle", payment, required);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, network: "eip155:31337" });
    const receipt = await stack.publicClient.getTransactionReceipt({
      hash: settled.body.transaction as `0x${string}`,
    });
    expect(receipt.status).toBe("success");
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before + 1_000_000n);

    const again = await post("/settle", payment, required);
    expect(again.body).toMatchObject({ success: false });
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before + 1_000_000n);
  });

  it("settles an exact-pq payment like exact", async () => {
    const required = requirements("exact-pq", "250000");
    const payment = await officialPayment(offer(required));
    expect(payment.accepted.scheme).toBe("exact-pq");
    const before = await stack.balanceOf(stack.accounts.payee.address);
    expect((await post("/verify", payment, required)).body).toMatchObject({ isValid: true });
    expect((await post("/settle", payment, required)).body).toMatchObject({ success: true });
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before + 250_000n);
  });

  it("explains a failed simulation (Multicall3 installed): nonce already used, insufficient balance", async () => {
    const required = requirements("exact", "5000");
    const payment = await officialPayment(offer(required));
    expect((await post("/settle", payment, required)).body).toMatchObject({ success: true });
    expect((await post("/verify", payment, required)).body).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_nonce_already_used",
    });

    const broke = privateKeyToAccount(devAccount(5).privateKey);
    const signed = await signTransferAuthorization({
      account: broke,
      token: stack.token,
      chainId: 31337,
      to: stack.accounts.payee.address,
      value: 5000n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    });
    const unfunded = { x402Version: 2, accepted: required, payload: signed };
    expect((await post("/verify", unfunded, required)).body).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
    });
  });

  it("rejects an expired authorization with the exact scheme's reason", async () => {
    const required = requirements("exact");
    const signed = await signTransferAuthorization({
      account: payer(),
      token: stack.token,
      chainId: 31337,
      to: stack.accounts.payee.address,
      value: 1_000_000n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) - 60),
    });
    const payment = { x402Version: 2, accepted: required, payload: signed };
    const verified = await post("/verify", payment, required);
    expect(verified.body).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
    });
  });

  it("answers an unknown scheme with isValid false, and a malformed body with 400", async () => {
    const required = { ...requirements("exact"), scheme: "upto" };
    const payment = { x402Version: 2, accepted: required, payload: {} };
    expect((await post("/verify", payment, required)).body).toMatchObject({
      isValid: false,
      invalidReason: "unsupported_scheme",
    });
    expect((await post("/verify", { nope: 1 }, required)).status).toBe(400);
  });

  it("refuses connections once stopped", async () => {
    const extra = await startFacilitator({
      rpcUrl: stack.rpcUrl,
      chain: stack.chain,
      privateKey: stack.accounts.facilitator.privateKey,
      schemes: ["exact"],
    });
    expect((await fetch(`${extra.url}/supported`)).status).toBe(200);
    await extra.stop();
    await expect(fetch(`${extra.url}/supported`)).rejects.toThrow();
  });
});
