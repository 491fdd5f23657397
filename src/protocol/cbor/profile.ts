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

/** Predicates of the six-part claim: a payer's intent, and a facilitator's receipt. */
export const PREDICATE_PAYS = "pays";
export const PREDICATE_WAS_PAID = "was_paid";
export type Predicate = typeof PREDICATE_PAYS | typeof PREDICATE_WAS_PAID;

/** Public key lengths, in bytes, by signature algorithm (the claim's subject). */
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ML_DSA_65_PUBLIC_KEY_BYTES = 1952;
export const ED25519_SIGNATURE_BYTES = 64;
export const ML_DSA_65_SIGNATURE_BYTES = 3309;

/** Largest `PAYMENT-SIGNATURE` header in this format (base64 of at most 64 KiB): over it → 431. */
export const MAX_CBOR_PAYMENT_HEADER_CHARS = Math.ceil((64 * 1024) / 3) * 4;
