import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bytesToHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signTransferAuthorization } from "../src/dev/signTransferAuthorization.js";
import { PAY_TO, type SignedPayload } from "./contenders.js";

/** Base Sepolia USDC: the asset `$0.001` on eip155:84532 resolves to, for every contender. */
export const TOKEN = {
  address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Hex,
  name: "USDC",
  version: "2",
};
export const CHAIN_ID = 84532;
const AMOUNT = 1000n;
/** 2100-01-01: far enough that a cached pool stays valid. */
const VALID_BEFORE = 4_102_444_800n;
/** A key that only ever signs bench payments for a test token; derived, so the cache is reproducible. */
const PAYER_KEY = bytesToHex(createHash("sha256").update("x402-gateway bench payer").digest());

const CACHE = join(dirname(fileURLToPath(import.meta.url)), "..", ".cache", "bench-payments.json");

/** `count` distinct authorizations for the bench's price, nonces `offset`… (deterministic, so cacheable). */
export async function signPayments(count: number, offset = 0): Promise<SignedPayload[]> {
  const account = privateKeyToAccount(PAYER_KEY);
  const signed: SignedPayload[] = [];
  for (let i = offset; i < offset + count; i++) {
    const nonce = bytesToHex(createHash("sha256").update(`bench payment ${i}`).digest());
    signed.push(
      await signTransferAuthorization({
        account,
        token: TOKEN,
        chainId: CHAIN_ID,
        to: PAY_TO,
        value: AMOUNT,
        validBefore: VALID_BEFORE,
        nonce,
      }),
    );
  }
  return signed;
}

/**
 * `size` distinct EIP-3009 authorizations, validly signed. Signing costs ~0.6 ms each, so they are
 * signed once and kept in `.cache/` (the servers' ledgers start empty every run, so reuse across runs is fine).
 */
export async function loadPaymentPool(
  size: number,
  log: (line: string) => void = () => {},
): Promise<SignedPayload[]> {
  let cached: SignedPayload[] = [];
  try {
    cached = JSON.parse(await readFile(CACHE, "utf8")) as SignedPayload[];
  } catch {
    cached = [];
  }
  if (cached.length >= size) return cached.slice(0, size);
  log(`signing ${size - cached.length} payments (once; cached in .cache/)…`);
  cached.push(...(await signPayments(size - cached.length, cached.length)));
  await mkdir(dirname(CACHE), { recursive: true });
  await writeFile(CACHE, JSON.stringify(cached));
  return cached;
}
