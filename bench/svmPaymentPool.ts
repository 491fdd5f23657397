import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Address } from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { solanaDevAccount } from "../src/dev/solanaDevAccounts.js";
import { LOCAL_SOLANA_NETWORK, LOCAL_USDC_MINT, startSolanaEngine } from "../src/dev/startSolanaEngine.js";
import type { BenchChain, SignedSvmPayload } from "./contenders.js";

/** `$0.001` in devnet USDC (6 decimals): what every contender's Solana offer asks. */
const AMOUNT = "1000";
/** How many payments are signed at once (each asks the engine for a blockhash first). */
const BATCH = 64;

const CACHE = join(dirname(fileURLToPath(import.meta.url)), "..", ".cache", "bench-svm-payments.json");

let chain: Promise<Required<BenchChain>> | undefined;

/** The LOCAL Solana engine's network and its deterministic dev accounts (public test keys, never of value). */
export function benchSolanaChain(): Promise<Required<BenchChain>> {
  return (chain ??= (async () => {
    const [payee, feePayer, payer] = await Promise.all([
      solanaDevAccount("payee"),
      solanaDevAccount("feePayer"),
      solanaDevAccount("payer"),
    ]);
    return {
      network: LOCAL_SOLANA_NETWORK,
      payTo: payee.address,
      feePayer: feePayer.address,
      payer: payer.address,
    };
  })());
}

/** What the pool was signed for: a cached pool for other accounts or another price is signed again. */
const cacheKey = (target: BenchChain) =>
  [target.network, target.payTo, target.feePayer, target.payer, LOCAL_USDC_MINT, AMOUNT].join("|");

/**
 * `count` exact payments made by the official `@x402/svm` client (the dev payer's key), each a distinct
 * transaction (the client's memo nonce), against a LOCAL Solana engine started for the purpose (it reads the
 * mint and a blockhash there). The engine's blockhash is valid for 150 landed transactions only, so these
 * never settle on a chain: the bench's facilitator accepts them at once, as it does the EVM pool.
 */
export async function signSvmPayments(count: number): Promise<SignedSvmPayload[]> {
  const target = await benchSolanaChain();
  const engine = await startSolanaEngine();
  try {
    const scheme = new ExactSvmScheme((await solanaDevAccount("payer")).signer, { rpcUrl: engine.rpcUrl });
    const requirements = {
      scheme: "exact",
      network: target.network as `${string}:${string}`,
      amount: AMOUNT,
      asset: LOCAL_USDC_MINT as Address,
      payTo: target.payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer: target.feePayer },
    };
    const signed: SignedSvmPayload[] = [];
    while (signed.length < count) {
      const batch = Math.min(BATCH, count - signed.length);
      const made = await Promise.all(
        Array.from({ length: batch }, () => scheme.createPaymentPayload(2, requirements)),
      );
      for (const { payload } of made) signed.push({ transaction: String(payload.transaction) });
    }
    return signed;
  } finally {
    await engine.stop();
  }
}

/** `size` distinct pre-signed Solana payments, signed once and kept in `.cache/` (as the EVM pool is). */
export async function loadSvmPaymentPool(
  size: number,
  log: (line: string) => void = () => {},
): Promise<SignedSvmPayload[]> {
  const key = cacheKey(await benchSolanaChain());
  let cached: SignedSvmPayload[] = [];
  try {
    const file = JSON.parse(await readFile(CACHE, "utf8")) as { key?: string; payments?: SignedSvmPayload[] };
    if (file.key === key && Array.isArray(file.payments)) cached = file.payments;
  } catch {
    cached = [];
  }
  if (cached.length >= size) return cached.slice(0, size);
  log(`signing ${size - cached.length} Solana payments with the official client (once; cached in .cache/)…`);
  cached.push(...(await signSvmPayments(size - cached.length)));
  await mkdir(dirname(CACHE), { recursive: true });
  await writeFile(CACHE, JSON.stringify({ key, payments: cached }));
  return cached;
}
