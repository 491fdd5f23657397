import type { QuantifiedClaim } from "../protocol/cbor/Claim.js";
import type { SignerId } from "../protocol/cbor/profile.js";

/** The seed's signer backends, by the names config and docs use (docs/cbor.md, "Signer backends"). */
export const SIGNER_BACKEND_NAMES = [
  "ServiceAuthSigner",
  "LayerTwoSigner",
  "EvmSigner",
  "Ed25519ChainSigner",
  "UtxoChainSigner",
] as const;
export type SignerBackendName = (typeof SIGNER_BACKEND_NAMES)[number];

/** What a route accepts when its config names no backend. */
export const DEFAULT_ACCEPTED_SIGNERS: readonly SignerBackendName[] = ["ServiceAuthSigner", "LayerTwoSigner"];

/** An intent to check: its exact bytes, the decoded claim and the `signature` field. */
export interface IntentToVerify {
  bytes: Uint8Array;
  claim: QuantifiedClaim;
  signature: Uint8Array;
}

/**
 * A backend's answer. A refusal is `verification_failed` unless it names another `code`:
 * `signer_rpc_not_configured` when the signature could only be checked through a node none is configured for.
 */
export type SignerVerdict =
  { valid: true } | { valid: false; reason: string; code?: "signer_rpc_not_configured" | undefined };

/**
 * One signer backend: checks that an intent's `signature` is its subject's. A verdict of `false` is a
 * normal answer (bad or foreign signature); a backend that cannot tell (its node is down) throws a
 * SignerUnavailableError, and the payment is refused, never let through (fail closed).
 */
export interface SignerBackend {
  readonly name: SignerBackendName;
  /** The subject forms (profile.ts, SIGNER_IDS) it verifies. */
  readonly signerIds: readonly SignerId[];
  verify(intent: IntentToVerify): Promise<SignerVerdict>;
}
