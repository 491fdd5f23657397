import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmClient } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmFacilitator } from "@x402/svm/exact/facilitator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_SOLANA_PAYER_FUNDS,
  LOCAL_SOLANA_NETWORK,
  startSolanaEngine,
  type RunningSolanaEngine,
} from "../../src/dev/startSolanaEngine.js";

describe("startSolanaEngine: the LOCAL Solana engine the official @x402/svm client and facilitator run on", () => {
  let engine: RunningSolanaEngine;
  let facilitator: x402Facilitator;
  let requirements: PaymentRequirements;
  const lines: string[] = [];

  beforeAll(async () => {
    engine = await startSolanaEngine({ log: (line) => lines.push(line) });
    facilitator = new x402Facilitator();
    const signer = toFacilitatorSvmSigner(engine.accounts.feePayer.signer, { defaultRpcUrl: engine.rpcUrl });
    facilitator.register(LOCAL_SOLANA_NETWORK as never, new ExactSvmFacilitator(signer));
    const kind = facilitator.getSupported().kinds.find((entry) => entry.network === LOCAL_SOLANA_NETWORK);
    requirements = {
      scheme: "exact",
      network: LOCAL_SOLANA_NETWORK as never,
      amount: "10000",
      asset: engine.mint,
      payTo: engine.accounts.payee.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: kind?.extra?.feePayer },
    };
  });
  afterAll(() => engine?.stop());

  const pay = async () => {
    const client = new ExactSvmClient(engine.accounts.payer.signer, { rpcUrl: engine.rpcUrl });
    const partial = await client.createPaymentPayload(2, requirements);
    return {
      x402Version: 2,
      accepted: requirements,
      payload: partial.payload,
      resource: { url: "http://x/" },
    };
  };

  it("labels itself LOCAL and answers as devnet with a funded payer and an empty payee", async () => {
    expect(lines.join("\n")).toMatch(/LOCAL Solana engine/);
    const response = await fetch(engine.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getGenesisHash" }),
    });
    const body = (await response.json()) as { result: string };
    expect(`solana:${body.result.slice(0, 32)}`).toBe(LOCAL_SOLANA_NETWORK);
    expect(await engine.tokenBalance(engine.accounts.payer.address)).toBe(DEFAULT_SOLANA_PAYER_FUNDS);
    expect(await engine.tokenBalance(engine.accounts.payee.address)).toBe(0n);
    expect(requirements.extra?.feePayer).toBe(engine.accounts.feePayer.address);
  });

  it("the official client pays, the official facilitator verifies and settles; the chain moves the tokens once", async () => {
    const payment = await pay();
    const verified = await facilitator.verify(payment as never, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: engine.accounts.payer.address });
    const settled = await facilitator.settle(payment as never, requirements);
    expect(settled.success).toBe(true);
    expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(engine.chain.transaction(settled.transaction)?.err).toBeNull();
    expect(await engine.tokenBalance(engine.accounts.payee.address)).toBe(10_000n);
    expect(await engine.tokenBalance(engine.accounts.payer.address)).toBe(
      DEFAULT_SOLANA_PAYER_FUNDS - 10_000n,
    );

    // The same payment again: refused, and nothing moves.
    const again = await facilitator.settle(payment as never, requirements);
    expect(again.success).toBe(false);
    expect(await engine.tokenBalance(engine.accounts.payee.address)).toBe(10_000n);
    expect([...engine.unknownMethods]).toEqual([]);
    // What the official client and facilitator asked of the chain (found by running them).
    expect([...engine.calls.keys()].filter((method) => method !== "getGenesisHash").sort()).toEqual([
      "getAccountInfo",
      "getLatestBlockhash",
      "getSignatureStatuses",
      "sendTransaction",
      "simulateTransaction",
    ]);
  });

  it("a payment beyond the payer's balance fails verification and moves nothing", async () => {
    const poorRequirements = { ...requirements, amount: (DEFAULT_SOLANA_PAYER_FUNDS * 2n).toString() };
    const client = new ExactSvmClient(engine.accounts.payer.signer, { rpcUrl: engine.rpcUrl });
    const partial = await client.createPaymentPayload(2, poorRequirements);
    const payment = {
      x402Version: 2,
      accepted: poorRequirements,
      payload: partial.payload,
      resource: { url: "http://x/" },
    };
    const before = await engine.tokenBalance(engine.accounts.payee.address);
    const verified = await facilitator.verify(payment as never, poorRequirements);
    expect(verified.isValid).toBe(false);
    const settled = await facilitator.settle(payment as never, poorRequirements);
    expect(settled.success).toBe(false);
    expect(await engine.tokenBalance(engine.accounts.payee.address)).toBe(before);
  });

  it("answers JSON-RPC errors for unknown methods and bad parameters, and logs the unknown method", async () => {
    const call = async (method: string, params: unknown) => {
      const response = await fetch(engine.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
      });
      return (await response.json()) as { error?: { code: number } };
    };
    expect((await call("getClusterNodes", [])).error?.code).toBe(-32601);
    expect(engine.unknownMethods.has("getClusterNodes")).toBe(true);
    expect((await call("getBalance", ["not an address"])).error?.code).toBe(-32602);
    expect((await call("sendTransaction", ["AAAA", { encoding: "base64" }])).error?.code).toBe(-32002);
    engine.unknownMethods.delete("getClusterNodes");
  });
});
