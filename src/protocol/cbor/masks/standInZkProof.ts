import { createHash, timingSafeEqual } from "node:crypto";
import type { ClaimPart } from "../Claim.js";

/**
 * What a `ZK` part's proof slot holds in this project: a STAND-IN, not a zero-knowledge proof. It is
 * SHA-256 over a fixed label, the part's name and the intent's `context`, so it binds the slot to the
 * offer and proves nothing about the hidden value (which never travels). A real prover replaces it.
 */
export const STAND_IN_ZK_PROOF_LABEL = "x402-gateway/stand-in-zk-proof/v0.3 (NOT a zero-knowledge proof)\n";

export function standInZkProof(part: ClaimPart, context: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash("sha256").update(STAND_IN_ZK_PROOF_LABEL).update(part).update(context).digest(),
  );
}

export function isStandInZkProof(proof: Uint8Array, part: ClaimPart, context: Uint8Array): boolean {
  const expected = standInZkProof(part, context);
  return proof.length === expected.length && timingSafeEqual(proof, expected);
}
