import {
  getBase58Codec,
  getBase64Encoder,
  getShortU16Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  isOffCurveAddress,
  partiallySignTransaction,
  type Address,
} from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startSolanaEngine, type RunningSolanaEngine } from "../../src/dev/startSolanaEngine.js";
import { SOLANA_PAGE_SCRIPT } from "../../src/paywall/page/solanaPageScript.js";

interface PageSolana {
  solanaExactTransaction(facts: Record<string, unknown>): Promise<{ transaction: Uint8Array }>;
  base58Decode(text: string): Uint8Array;
  base58Encode(bytes: Uint8Array): string;
  compactU16(value: number): Uint8Array;
  isOnCurve(bytes: Uint8Array): boolean;
  solanaAddress(text: unknown): Uint8Array;
}

/** The page's functions, run in Node as the browser runs them (the same source text). */
const page = new Function(
  `${SOLANA_PAGE_SCRIPT}\nreturn { solanaExactTransaction, base58Decode, base58Encode, compactU16, isOnCurve, solanaAddress };`,
)() as PageSolana;

const BLOCKHASH = "9zrUHnA1nCByPksy3aL8tQ47vqdaG2vnFs4HrxgcZj4F";
const base58 = getBase58Codec();

describe("the paywall page's Solana transaction: the official @x402/svm client's bytes", () => {
  let engine: RunningSolanaEngine;
  beforeAll(async () => {
    engine = await startSolanaEngine();
  }, 60_000);
  afterAll(() => engine?.stop());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const requirements = (extra: Record<string, unknown>) => ({
    scheme: "exact",
    network: engine.network,
    amount: "10000",
    asset: engine.mint,
    payTo: engine.accounts.payee.address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: engine.accounts.feePayer.address, recentBlockhash: BLOCKHASH, ...extra },
  });

  /** The official client's transaction and the page's, the page's signed by the payer as a wallet would. */
  const both = async (extra: Record<string, unknown>) => {
    const official = await new ExactSvmScheme(engine.accounts.payer.signer, {
      rpcUrl: engine.rpcUrl,
    }).createPaymentPayload(2, requirements(extra) as never);
    const built = await page.solanaExactTransaction({
      payer: engine.accounts.payer.address,
      payTo: engine.accounts.payee.address,
      mint: engine.mint,
      feePayer: engine.accounts.feePayer.address,
      amount: "10000",
      decimals: 6,
      tokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      blockhash: BLOCKHASH,
      memo: extra.memo,
    });
    const decoded = getTransactionDecoder().decode(built.transaction);
    const signed = await partiallySignTransaction([engine.accounts.payer.signer.keyPair], decoded);
    return {
      official: getBase64Encoder().encode(official.payload.transaction as string),
      page: new Uint8Array(getTransactionEncoder().encode(signed)),
      unsigned: built.transaction,
    };
  };

  it("with the seller's memo: byte for byte the same, once the payer signed", async () => {
    const { official, page: ours, unsigned } = await both({ memo: "order 42: été ✓" });
    expect(Buffer.from(ours).toString("hex")).toBe(Buffer.from(official).toString("hex"));
    // Two signature slots, both empty before the wallet signs: the payer's and the fee payer's.
    expect(unsigned[0]).toBe(2);
    expect(unsigned.subarray(1, 129).every((byte) => byte === 0)).toBe(true);
  });

  it("without a memo: the same bytes for the same 16 random bytes (the nonce memo, in hex)", async () => {
    const nonce = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
    vi.spyOn(globalThis.crypto, "getRandomValues").mockImplementation(((array: Uint8Array) => {
      array.set(nonce);
      return array;
    }) as typeof globalThis.crypto.getRandomValues);
    const { official, page: ours } = await both({});
    expect(Buffer.from(ours).toString("hex")).toBe(Buffer.from(official).toString("hex"));
  });

  it("refuses a mint of an unknown token program and a memo over 256 bytes", async () => {
    const facts = {
      payer: engine.accounts.payer.address,
      payTo: engine.accounts.payee.address,
      mint: engine.mint,
      feePayer: engine.accounts.feePayer.address,
      amount: "1",
      decimals: 6,
      tokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      blockhash: BLOCKHASH,
    };
    await expect(
      page.solanaExactTransaction({ ...facts, tokenProgram: engine.accounts.payee.address }),
    ).rejects.toThrow(/known token program/);
    await expect(page.solanaExactTransaction({ ...facts, memo: "x".repeat(257) })).rejects.toThrow(
      /256 bytes/,
    );
    await expect(page.solanaExactTransaction({ ...facts, amount: (1n << 64n).toString() })).rejects.toThrow(
      /does not fit/,
    );
  });
});

describe("the page's Solana primitives against @solana/kit", () => {
  it("base58 round-trips and matches kit's codec", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), (bytes) => {
        const text = page.base58Encode(bytes);
        expect(text).toBe(base58.decode(bytes));
        expect(Array.from(page.base58Decode(text))).toEqual(Array.from(bytes));
      }),
    );
  });

  it("compact-u16 matches kit's shortU16 encoder over the whole range", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (value) => {
        expect(Array.from(page.compactU16(value))).toEqual(Array.from(getShortU16Encoder().encode(value)));
      }),
    );
    for (const value of [0, 127, 128, 16383, 16384, 0xffff]) {
      expect(Array.from(page.compactU16(value))).toEqual(Array.from(getShortU16Encoder().encode(value)));
    }
    for (const hostile of [-1, 0x10000, Number.NaN, 1.5e9]) expect(() => page.compactU16(hostile)).toThrow();
  });

  it("the curve check agrees with kit's off-curve test (random bytes and real public keys)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        expect(page.isOnCurve(bytes)).toBe(!isOffCurveAddress(base58.decode(bytes) as Address));
      }),
      { numRuns: 300 },
    );
    // Public keys are points; the associated token program's own address is one too.
    for (const key of [
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    ]) {
      expect(page.isOnCurve(base58.encode(key) as Uint8Array)).toBe(!isOffCurveAddress(key as Address));
    }
  });

  it.each([
    ["empty", ""],
    ["too short", "1111"],
    ["not base58 (0, O, I, l)", "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl"],
    ["too long", "z".repeat(45)],
    ["33 bytes", base58.decode(new Uint8Array(33).fill(255))],
    ["31 bytes", base58.decode(new Uint8Array(31).fill(255))],
    ["a number", 42],
    ["undefined", undefined],
    ["markup", "<script>alert(1)</script>"],
    ["an EVM address", "0x0000000000000000000000000000000000000001"],
  ])("a hostile address (%s) is refused", (_case, text) => {
    expect(() => page.solanaAddress(text)).toThrow(/not a Solana address/);
  });
});
