import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { startStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import { StarknetRecognizer } from "../../src/recognition/StarknetRecognizer.js";

// Long enough that the check right after a settlement runs well inside it; the test then waits for
// the recording itself (recorder.idle()), never for a fixed time.
const RECORD_DELAY_MS = 3_000;

let stack: LocalStack;
let layer2File: string;

beforeAll(async () => {
  layer2File = join(await mkdtemp(join(tmpdir(), "layer2-")), "layer2.sqlite");
  stack = await startLocalStack({ layer2File, recordDelayMs: RECORD_DELAY_MS });
});

afterAll(async () => {
  await stack?.stop();
});

function requirements(amount = "1000"): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:31337",
    amount,
    asset: stack.token.address,
    payTo: stack.accounts.payee.address,
    maxTimeoutSeconds: 120,
    extra: { name: stack.token.name, version: stack.token.version },
  };
}

async function payment(required: PaymentRequirements): Promise<PaymentPayload> {
  const client = new x402Client()
    .register("eip155:*", new ExactEvmScheme(privateKeyToAccount(stack.accounts.payer.privateKey)))
    .setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: stack.token.address }] });
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: "http://127.0.0.1/report" },
    accepts: [required],
  });
}

async function settle(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) {
  const response = await fetch(`${stack.facilitatorUrl}/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
  });
  return (await response.json()) as { success: boolean; payer?: string };
}

describe("the local stack records each settled payer on its layer-2 stand-in, a little later", () => {
  it("0x0 right after the settlement, 0x1 once recorded; a refused settlement records nothing", async () => {
    const recognizer = new StarknetRecognizer({ rpcUrl: stack.layer2.url, contract: stack.layer2.contract });
    const payer = stack.accounts.payer.address;
    expect(await recognizer.estOuverte(payer)).toBe("0x0");

    // Refused (more than the payer holds): nothing scheduled.
    const tooMuch = requirements("1000000000000");
    expect(await settle(await payment(tooMuch), tooMuch)).toMatchObject({ success: false });
    expect(stack.recorder.pending).toBe(0);

    const required = requirements();
    const payeeBefore = await stack.balanceOf(stack.accounts.payee.address);
    expect(await settle(await payment(required), required)).toMatchObject({ success: true, payer });
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(payeeBefore + 1000n);
    expect(stack.recorder.pending).toBe(1);
    expect(await recognizer.estOuverte(payer)).toBe("0x0");

    await stack.recorder.idle();
    expect(await recognizer.estOuverte(payer)).toBe("0x1");
    expect(await recognizer.isRecognized(stack.accounts.payee.address)).toBe(false);
    expect(stack.layer2.recorded().map((row) => row.payer)).toEqual([payer.toLowerCase()]);
    expect(stack.facilitator.calls.settle).toBe(2);
  });

  it("the recording outlives the stack: the stand-in reopened on its file still answers 0x1", async () => {
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
