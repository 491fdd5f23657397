import { sha256 } from "../../common/digests.js";
import type { Claim } from "./Claim.js";
import { PREDICATE_IS_HUMAN } from "./profile.js";
import { payerIdOf, type SigningKey } from "./signatures.js";
import { decodeSignedClaim, encodeSignedClaim, openSignedClaim, sameKey, signClaim } from "./SignedClaim.js";

/** Why a humanity claim is refused; each is its own error code (docs/errors.md). */
export type HumanityRefusalCode =
  | "humanity_claim_required"
  | "humanity_claim_invalid"
  | "humanity_issuer_untrusted"
  | "humanity_claim_mismatch"
  | "humanity_claim_expired";

export interface HumanityRefusal {
  code: HumanityRefusalCode;
  /** One actionable line. */
  message: string;
  details: Record<string, unknown>;
}

export interface HumanityClaimCheck {
  /** The `humanity_claim` bytes of the PaymentSignature (undefined when absent). */
  humanityClaim: Uint8Array | undefined;
  /** The intent's subject: the claim must be about the same key. */
  subject: Uint8Array;
  /** Issuer public keys this route trusts (Ed25519 or ML-DSA-65). */
  trustedIssuers: readonly Uint8Array[];
  /** Seconds since the epoch. */
  nowSeconds: number;
  /** Clock difference tolerated on the claim's validity, in seconds. */
  skewSeconds: number;
}

/**
 * The humanity gate (v0.3): `humanity_claim` must be the canonical CBOR of a SignedClaim
 * `[subject, "is_human", issuer label, null, valid until, evidence digest]`, signed over its exact
 * claim bytes by one of `trustedIssuers`, about the intent's own subject, and still valid at `now`
 * (allowing `skewSeconds`). Pure; answers `undefined` when the claim passes, else the refusal.
 */
export function checkHumanityClaim(check: HumanityClaimCheck): HumanityRefusal | undefined {
  if (check.humanityClaim === undefined) {
    return {
      code: "humanity_claim_required",
      message: "this route takes only payers with a humanity claim: add humanity_claim from a trusted issuer",
      details: { field: "humanity_claim" },
    };
  }
  const verdict = openSignedClaim(check.humanityClaim, {
    predicate: PREDICATE_IS_HUMAN,
    trustedSigners: check.trustedIssuers,
  });
  if (!verdict.valid) {
    if (verdict.problem === "untrusted_signer") {
      return {
        code: "humanity_issuer_untrusted",
        message: "the humanity claim is signed by an issuer this route does not trust",
        details: { field: "humanity_claim.signer", issuer: issuerIdOf(check.humanityClaim) },
      };
    }
    return {
      code: "humanity_claim_invalid",
      message: `the humanity claim is not valid: ${verdict.reason}`,
      details: { field: "humanity_claim", problem: verdict.problem },
    };
  }
  const { claim } = verdict;
  if (claim.object.length === 0) {
    return {
      code: "humanity_claim_invalid",
      message: "the humanity claim names no issuer (empty object)",
      details: { field: "humanity_claim.object", problem: "malformed" },
    };
  }
  if (!sameKey(claim.subject, check.subject)) {
    return {
      code: "humanity_claim_mismatch",
      message: "the humanity claim is about another key than the intent's subject",
      details: {
        field: "humanity_claim.subject",
        expected: payerIdOf(check.subject),
        received: payerIdOf(claim.subject),
      },
    };
  }
  if (claim.time + check.skewSeconds < check.nowSeconds) {
    return {
      code: "humanity_claim_expired",
      message: "the humanity claim has expired: ask its issuer for a new one",
      details: { field: "humanity_claim.time", validUntil: new Date(claim.time * 1000).toISOString() },
    };
  }
  return undefined;
}

export interface HumanityClaimTerms {
  /** The public key the claim is about: the payer's intent key. */
  subject: Uint8Array;
  /** How the issuer names itself (the claim's object), e.g. `issuer:example`. */
  label: string;
  /** Seconds since the epoch after which the claim is void. */
  validUntil: number;
  /**
   * A reference to the issuer's evidence (a case id, a URL, …): the claim's context is its SHA-256,
   * so the evidence itself never travels. Default: none (the digest of the empty string).
   */
  evidence?: string | Uint8Array;
}

/** The issuer's side: "subject is_human, says label, until validUntil", signed; returns the `humanity_claim` bytes. */
export function issueHumanityClaim(issuerKey: SigningKey, terms: HumanityClaimTerms): Uint8Array {
  const claim: Claim = {
    subject: terms.subject,
    predicate: PREDICATE_IS_HUMAN,
    object: terms.label,
    quantity: null,
    time: terms.validUntil,
    context: sha256(terms.evidence ?? ""),
  };
  if (terms.label.length === 0) throw new RangeError("a humanity claim's issuer label cannot be empty");
  return encodeSignedClaim(signClaim(issuerKey, claim));
}

/** The signer of an envelope already found well-formed, named as payers are (`ed25519:<sha256>`). */
function issuerIdOf(bytes: Uint8Array): string {
  return payerIdOf(decodeSignedClaim(bytes).signer);
}
