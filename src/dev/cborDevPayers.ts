import { createHash } from "node:crypto";
import type { Currency } from "../protocol/cbor/profile.js";
import { createSigningKey, type SignatureAlgorithm, type SigningKey } from "../protocol/cbor/signatures.js";

/**
 * The local CBOR demo's payers: keys derived from public, well-known seeds (like anvil's dev
 * accounts) — test keys for the local stand-in facilitator, never for anything of value.
 */
export function cborDevPayerSeed(algorithm: SignatureAlgorithm): Uint8Array {
  return new Uint8Array(createHash("sha256").update(`x402-gateway local demo payer (${algorithm})`).digest());
}

export function cborDevPayer(algorithm: SignatureAlgorithm): SigningKey {
  return createSigningKey(algorithm, cborDevPayerSeed(algorithm));
}

/** Opening test balances of the demo payers: 1000 USDC, 1000 STRK, 1 strkBTC. */
export const CBOR_DEV_BALANCES: Partial<Record<Currency, bigint>> = {
  USDC: 1_000n * 10n ** 6n,
  STRK: 1_000n * 10n ** 18n,
  strkBTC: 10n ** 8n,
};
