import type { SignerId } from "../protocol/cbor/profile.js";

/**
 * What signs a payer's intents: a ServiceAuthSigner key (a SigningKey: Ed25519 or ML-DSA-65) or another
 * backend's signer (e.g. {@link starknetIntentKey}). Its `publicKey` becomes the claim's subject.
 */
export interface IntentKey {
  /** The subject: a ServiceAuthSigner public key, or the identity `signer` names. */
  publicKey: Uint8Array;
  /** The backend (absent: ServiceAuthSigner). */
  signer?: Exclude<SignerId, "service-auth"> | undefined;
  /** The `signature` field over the exact `payment_intent` bytes. */
  sign(paymentIntent: Uint8Array): Uint8Array;
}
