/**
 * The x402+cbor profile in one place. The seed fixes the media type, canonical CBOR, the field names
 * of PaymentRequest and PaymentSignature, the POST retry and Ed25519 / ML-DSA-65. The rest — the
 * six-part claim's layout, the receipt map, the facilitator bodies, the deadline's encoding — is this
 * project's v0.3 profile, labelled as such, to follow the specification once it is published.
 */
export const CBOR_MEDIA_TYPE = "application/x402+cbor";

export const CURRENCIES = ["USDC", "STRK", "strkBTC"] as const;
export type Currency = (typeof CURRENCIES)[number];

export function isCurrency(value: unknown): value is Currency {
  return (CURRENCIES as readonly unknown[]).includes(value);
}

/** Default references a PaymentRequest carries (v0.3 labels). */
export const DEFAULT_REVELATION_MASK_REF = "mask:v0.3:open-fields";
export const DEFAULT_CLAIM_SCHEMA_REF = "schema:v0.3:payment-intent";

/**
 * Predicates of the six-part claim (v0.3). What `object`, `quantity`, `time` and `context` hold for
 * each is listed in docs/cbor.md:
 * - `pays`: a payer's intent; `was_paid`: a facilitator's receipt;
 * - `is_human`: an issuer's humanity claim about the subject (no quantity; `time` = valid until);
 * - `may_pay`: a delegation grant to the subject (quantity = the cap; `time` = valid until);
 * - `revokes`: a facilitator's revocation of a receipt (on refund).
 */
export const PREDICATE_PAYS = "pays";
export const PREDICATE_WAS_PAID = "was_paid";
export const PREDICATE_IS_HUMAN = "is_human";
export const PREDICATE_MAY_PAY = "may_pay";
export const PREDICATE_REVOKES = "revokes";
export const PREDICATES = [
  PREDICATE_PAYS,
  PREDICATE_WAS_PAID,
  PREDICATE_IS_HUMAN,
  PREDICATE_MAY_PAY,
  PREDICATE_REVOKES,
] as const;
export type Predicate = (typeof PREDICATES)[number];

export function isPredicate(value: unknown): value is Predicate {
  return (PREDICATES as readonly unknown[]).includes(value);
}

/** Predicates whose claim carries no quantity (CBOR `null` in its place). */
export const UNQUANTIFIED_PREDICATES: readonly Predicate[] = [PREDICATE_IS_HUMAN];

/** Public key lengths, in bytes, by signature algorithm (the claim's subject). */
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ML_DSA_65_PUBLIC_KEY_BYTES = 1952;
export const ED25519_SIGNATURE_BYTES = 64;
export const ML_DSA_65_SIGNATURE_BYTES = 3309;

/** Largest `PAYMENT-SIGNATURE` header in this format (base64 of at most 64 KiB): over it → 431. */
export const MAX_CBOR_PAYMENT_HEADER_CHARS = Math.ceil((64 * 1024) / 3) * 4;

/**
 * The signer backends an intent's `subject` can name (v0.3, docs/cbor.md "Signer backends"). A bare
 * byte string is a ServiceAuthSigner key (Ed25519 or ML-DSA-65: every intent before backends were
 * named); any other backend is the array `[signer id, identity bytes]`:
 * - `starknet-account`: a Starknet contract account's address (32 bytes, a felt), checked with SNIP-6;
 * - `starknet-key`: a Stark public key (32 bytes, the x coordinate, a felt), checked offline;
 * - `evm`: an EVM address (20 bytes), EIP-712 (EIP-1271 for a contract wallet);
 * - `ed25519-chain`, `utxo`: named by the seed, not built here (refused with `signer_not_built`).
 */
export const SIGNER_IDS = [
  "service-auth",
  "starknet-account",
  "starknet-key",
  "evm",
  "ed25519-chain",
  "utxo",
] as const;
export type SignerId = (typeof SIGNER_IDS)[number];

export function isSignerId(value: unknown): value is SignerId {
  return (SIGNER_IDS as readonly unknown[]).includes(value);
}

/** The identity lengths, in bytes, of each named backend's subject (service-auth: the key lengths above). */
export const SIGNER_IDENTITY_BYTES: Record<Exclude<SignerId, "service-auth">, readonly number[]> = {
  "starknet-account": [32],
  "starknet-key": [32],
  evm: [20],
  "ed25519-chain": [32],
  /** A compressed secp256k1 key (33) or an x-only key (32). */
  utxo: [32, 33],
};

/** A Starknet felt's bound: an identity or signature word of the layer-2 backends is below it. */
export const STARK_FIELD_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;
