import { equalBytesConstantTime } from "../../common/digests.js";
import { decodeBase64 } from "../decodeBase64.js";
import { CborFields } from "./CborFields.js";
import { MAX_CBOR_RECORD_ITEMS, type CborValue } from "./CborValue.js";
import { decodeClaim, encodeClaim, type Claim } from "./Claim.js";
import { encodeCanonical } from "./encodeCanonical.js";
import type { Predicate } from "./profile.js";
import { verifySignature, type SigningKey } from "./signatures.js";

/**
 * A six-part claim signed by a key (v0.3): the envelope of receipts, humanity claims, delegation
 * grants and revocations. `{ claim: bstr, signature: bstr, signer: bstr }`: the claim's canonical
 * bytes, the signature over exactly those bytes, and the signer's public key (Ed25519 or ML-DSA-65).
 */
export interface SignedClaim {
  /** The canonical CBOR of a six-part claim. */
  claim: Uint8Array;
  /** The signer's signature over the exact `claim` bytes. */
  signature: Uint8Array;
  /** The signer's public key: 32 bytes (Ed25519) or 1952 bytes (ML-DSA-65). */
  signer: Uint8Array;
}

export function encodeSignedClaim(signed: SignedClaim): Uint8Array {
  return encodeCanonical(
    new Map<string, CborValue>([
      ["claim", signed.claim],
      ["signature", signed.signature],
      ["signer", signed.signer],
    ]),
  );
}

export function decodeSignedClaim(bytes: Uint8Array, what = "SignedClaim"): SignedClaim {
  const fields = CborFields.decode(bytes, what, { maxItems: MAX_CBOR_RECORD_ITEMS });
  const signed = {
    claim: fields.bytes("claim"),
    signature: fields.bytes("signature"),
    signer: fields.bytes("signer"),
  };
  fields.done();
  return signed;
}

/** Sign `claim` with `key`: the envelope over its canonical bytes. */
export function signClaim(key: SigningKey, claim: Claim): SignedClaim {
  const bytes = encodeClaim(claim);
  return { claim: bytes, signature: key.sign(bytes), signer: key.publicKey };
}

export type SignedClaimVerdict =
  | { valid: true; claim: Claim; signer: Uint8Array }
  | {
      valid: false;
      problem: "malformed" | "untrusted_signer" | "bad_signature" | "wrong_predicate";
      reason: string;
    };

export interface OpenSignedClaimOptions {
  /** The predicate the claim must have. */
  predicate: Predicate;
  /** When given, the signer must be one of these keys (compared in constant time). */
  trustedSigners?: readonly Uint8Array[];
}

/**
 * Check a signed claim: well-formed canonical CBOR, the signer among `trustedSigners` (when given), the
 * signature the signer's over the exact claim bytes, the expected predicate. Takes the decoded envelope,
 * its CBOR bytes, or their base64. Never throws for bad input: the verdict says what is wrong.
 */
export function openSignedClaim(
  input: SignedClaim | Uint8Array | string,
  options: OpenSignedClaimOptions,
): SignedClaimVerdict {
  let signed: SignedClaim;
  let claim: Claim;
  try {
    const bytes = typeof input === "string" ? decodeBase64(input) : input;
    signed = bytes instanceof Uint8Array ? decodeSignedClaim(bytes) : bytes;
    claim = decodeClaim(signed.claim);
  } catch (error) {
    return {
      valid: false,
      problem: "malformed",
      reason: `malformed signed claim: ${(error as Error).message}`,
    };
  }
  if (
    options.trustedSigners !== undefined &&
    !options.trustedSigners.some((key) => sameKey(key, signed.signer))
  ) {
    return { valid: false, problem: "untrusted_signer", reason: "signed by a key that is not trusted here" };
  }
  if (!verifySignature(signed.signer, signed.claim, signed.signature)) {
    return { valid: false, problem: "bad_signature", reason: "the signature does not match the claim" };
  }
  if (claim.predicate !== options.predicate) {
    return {
      valid: false,
      problem: "wrong_predicate",
      reason: `expected a "${options.predicate}" claim, got "${claim.predicate}"`,
    };
  }
  return { valid: true, claim, signer: signed.signer };
}

/** Whether two public keys are the same bytes (constant time for equal lengths). */
export function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  return equalBytesConstantTime(a, b);
}
