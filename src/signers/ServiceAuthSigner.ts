import { algorithmOf, verifySignature } from "../protocol/cbor/signatures.js";
import type { IntentToVerify, SignerBackend, SignerVerdict } from "./SignerBackend.js";

/**
 * The MVP's default backend: the subject is an Ed25519 (32 bytes) or ML-DSA-65 (1952 bytes) public key,
 * and `signature` is its signature over the exact `payment_intent` bytes. Offline.
 */
export class ServiceAuthSigner implements SignerBackend {
  readonly name = "ServiceAuthSigner";
  readonly signerIds = ["service-auth"] as const;

  async verify({ bytes, claim, signature }: IntentToVerify): Promise<SignerVerdict> {
    if (verifySignature(claim.subject, bytes, signature)) return { valid: true };
    return {
      valid: false,
      reason: `${signature.length} bytes that are not the ${algorithmOf(claim.subject) ?? "subject"} key's signature over payment_intent`,
    };
  }
}
