import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { recordOnStandIn } from "../../src/dev/recordOnStandIn.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { startStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { StarknetRecognizer } from "../../src/recognition/StarknetRecognizer.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { stackPayer } from "../support/stackPayer.js";

// Long enough that the check right after a payment runs well inside it; the test then waits for the
// recording itself (recorder.idle()), never for a fixed time.
const RECORD_DELAY_MS = 1_500;
const PRICE = 1_000n;

let stack: LocalStack;
let layer2File: string;
let upstream: TestUpstream;
let gateway: RunningGateway;
/** Route B's own registry contract (route A reads the stand-in's default one). */
let contractB: string;

beforeAll(async () => {
  layer2File = join(await mkdtemp(join(tmpdir(), "layer2-")), "layer2.sqlite");
  [stack, upstream] = await Promise.all([
    startLocalStack({ layer2File, recordDelayMs: RECORD_DELAY_MS }),
    startUpstream(),
  ]);
  contractB = stack.layer2.deployRegistry("GET /b");
  const port = await findFreePort("127.0.0.1");
  const price = { amount: PRICE.toString(), asset: stack.token.address };
  const recognition = (contract: string) => ({ rpcUrl: stack.layer2.url, contract, negativeTtlMs: 0 });
  const config = gatewayConfig({
    upstreamUrl: upstream.url,
    facilitatorUrl: stack.facilitatorUrl,
    listen: { host: "127.0.0.1", port },
    publicUrl: `http://127.0.0.1:${port}`,
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    assets: [
      { network: "eip155:31337", address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    routes: {
      "GET /a": { price, recognition: recognition(stack.layer2.contract) },
      "GET /b": { price, recognition: recognition(contractB) },
      "GET /plain": { price },
    },
  });
  gateway = await createGateway(config, {
    paywallOverrides: { onPaid: recordOnStandIn(config, stack) },
  }).listen();
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await stack?.stop();
});

const recognizer = (contract: string) => new StarknetRecognizer({ rpcUrl: stack.layer2.url, contract });
const payer = () => stack.accounts.payer;

function requirements(amount: string, payTo: string): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:31337",
    amount,
    asset: stack.token.address,
    payTo,
    maxTimeoutSeconds: 120,
    extra: { name: stack.token.name, version: stack.token.version },
  };
}

async function settleAtFacilitator(required: PaymentRequirements) {
  const client = new x402Client()
    .register("eip155:*", new ExactEvmScheme(privateKeyToAccount(payer().privateKey)))
    .setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }] });
  const paymentPayload: PaymentPayload = await client.createPaymentPayload({
    x402Version: 2,
    resource: { url: "http://127.0.0.1/report" },
    accepts: [required],
  });
  const response = await fetch(`${stack.facilitatorUrl}/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: required }),
  });
  return (await response.json()) as { success: boolean; payer?: string };
}

const { pay, signIn } = stackPayer(
  () => stack,
  () => gateway.url,
);

describe("a payer is recorded only for what it paid, per resource, from the gateway's paid event", () => {
  it("a 0-token transfer to oneself settled at the facilitator records nothing: est_ouverte stays 0x0", async () => {
    const self = payer().address;
    // The facilitator settles it (a real transaction on anvil): a settlement alone must record nothing.
    expect(await settleAtFacilitator(requirements("0", self))).toMatchObject({ success: true, payer: self });
    expect(await settleAtFacilitator(requirements("1", self))).toMatchObject({ success: true, payer: self });
    expect(stack.recorder.pending).toBe(0);
    await stack.recorder.idle();
    expect(await recognizer(stack.layer2.contract).estOuverte(self)).toBe("0x0");
    expect(await recognizer(contractB).estOuverte(self)).toBe("0x0");
    expect(stack.layer2.recorded()).toEqual([]);
    expect(await signIn("/a")).toBe(402);
  });

  it("paying a priced route without recognition records nothing", async () => {
    const response = await pay("/plain");
    expect(response.status).toBe(200);
    expect(stack.recorder.pending).toBe(0);
    expect(stack.layer2.recorded()).toEqual([]);
  });

  it("paying route A: 0x0 right after, then 0x1 in A's contract only; sign-in admitted on A, refused on B", async () => {
    const payeeBefore = await stack.balanceOf(stack.accounts.payee.address);
    const response = await pay("/a");
    expect(response.status).toBe(200);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(payeeBefore + PRICE);
    expect(stack.recorder.pending).toBe(1);
    expect(await recognizer(stack.layer2.contract).estOuverte(payer().address)).toBe("0x0");

    await stack.recorder.idle();
    expect(await recognizer(stack.layer2.contract).estOuverte(payer().address)).toBe("0x1");
    expect(await recognizer(contractB).estOuverte(payer().address)).toBe("0x0");
    expect(stack.layer2.recorded()).toEqual([
      expect.objectContaining({ contract: stack.layer2.contract, payer: payer().address.toLowerCase() }),
    ]);
    const served = upstream.seen.length;
    expect(await signIn("/a")).toBe(200);
    expect(upstream.seen.length).toBe(served + 1);
    expect(await signIn("/b")).toBe(402);
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(payeeBefore + PRICE);
  });

  it("the recording outlives the stack: the stand-in reopened on its file still answers 0x1", async () => {
    await gateway.close();
    await stack.stop();
    const reopened = await startStarknetStandIn({ file: layer2File });
    try {
      const recognizer = new StarknetRecognizer({ rpcUrl: reopened.url, contract: reopened.contract });
      expect(await recognizer.estOuverte(stack.accounts.payer.address)).toBe("0x1");
    } finally {
      await reopened.stop();
    }
  });
});
