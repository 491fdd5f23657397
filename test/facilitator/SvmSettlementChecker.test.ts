import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme as ExactSvmClient } from "@x402/svm/exact/client";
import { ExactSvmScheme as ExactSvmFacilitator } from "@x402/svm/exact/facilitator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvmSettlementChecker } from "../../src/facilitator/SvmSettlementChecker.js";
import type { PaymentPayload } from "../../src/protocol/schemas.js";
import { startSolanaEngine, type RunningSolanaEngine } from "../../src/dev/startSolanaEngine.js";

describe("SvmSettlementChecker: an unknown Solana settlement resolved on the LOCAL engine", () => {
  let engine: RunningSolanaEngine;
  let facilitator: x402Facilitator;
  let requirements: PaymentRequirements;
  let checker: SvmSettlementChecker;

  beforeAll(async () => {
    engine = await startSolanaEngine();
    facilitator = new x402Facilitator();
    const signer = toFacilitatorSvmSigner(engine.accounts.feePayer.signer, { defaultRpcUrl: engine.rpcUrl });
    facilitator.register(engine.network as never, new ExactSvmFacilitator(signer));
    requirements = {
      scheme: "exact",
      network: engine.network as never,
      amount: "1000",
      asset: engine.mint,
      payTo: engine.accounts.payee.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: engine.accounts.feePayer.address },
    };
    checker = new SvmSettlementChecker({ rpcUrls: { [engine.network]: engine.rpcUrl } });
  });
  afterAll(() => engine?.stop());

  const sign = async (): Promise<PaymentPayload> => {
    const client = new ExactSvmClient(engine.accounts.payer.signer, { rpcUrl: engine.rpcUrl });
    const { payload } = await client.createPaymentPayload(2, requirements);
    return {
      x402Version: 2,
      accepted: requirements,
      payload,
      resource: { url: "http://x/" },
    } as PaymentPayload;
  };

  it("covers the Solana networks it has an RPC for, and no other", () => {
    expect(checker.covers(engine.network)).toBe(true);
    expect(checker.covers("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")).toBe(false);
    expect(checker.covers("eip155:1")).toBe(false);
  });

  it("a landed payment: settled, with the transaction's signature", async () => {
    const payment = await sign();
    const settled = await facilitator.settle(payment as never, requirements);
    expect(settled.success).toBe(true);
    expect(await checker.check(payment, requirements as never)).toEqual({
      state: "settled",
      transaction: settled.transaction,
    });
  });

  it("not landed, blockhash still valid: pending; once the blockhash expired: not settled", async () => {
    const payment = await sign();
    expect((await checker.check(payment, requirements as never)).state).toBe("pending");
    engine.chain.advanceBlockhash();
    engine.chain.advanceSlots(200n);
    expect(await checker.check(payment, requirements as never)).toMatchObject({ state: "not_settled" });
    // And indeed the chain refuses it now.
    const late = await facilitator.settle(payment as never, requirements);
    expect(late.success).toBe(false);
  });

  it("an RPC that fails or is not there: pending, never settled", async () => {
    const payment = await sign();
    const down = new SvmSettlementChecker({
      rpcUrls: { [engine.network]: "http://127.0.0.1:9" },
      timeoutMs: 500,
    });
    expect((await down.check(payment, requirements as never)).state).toBe("pending");
    const garbage = { ...payment, payload: { transaction: "AAAA" } };
    expect((await checker.check(garbage, requirements as never)).state).toBe("pending");
  });
});
