import { createHash, timingSafeEqual } from "node:crypto";

/**
 * What the `stark_proof` field holds in this project's local stack: a STAND-IN, not a STARK proof.
 * It is SHA-256 over a fixed label and the exact `payment_intent` bytes, so it binds the intent and
 * nothing else; it proves no statement and nothing verifies one. A real prover replaces it.
 */
export const STAND_IN_PROOF_LABEL = "x402-gateway/stand-in-proof/v0.3 (NOT a STARK proof)\n";

export const STAND_IN_PROOF_NOTICE =
  "stark_proof is a STAND-IN (SHA-256 binding the intent), not a STARK proof: no proof is verified";

export function standInProof(paymentIntent: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(STAND_IN_PROOF_LABEL).update(paymentIntent).digest());
}

export function isStandInProof(proof: Uint8Array, paymentIntent: Uint8Array): boolean {
  const expected = standInProof(paymentIntent);
  return proof.length === expected.length && timingSafeEqual(proof, expected);
}
