import { sha256, sha256Hex } from "../../common/digests.js";
import { CborError } from "./CborError.js";
import type { CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";
import { verifySignature } from "./signatures.js";
import { sameKey } from "./SignedClaim.js";

/** The text that opens the array a receipt's signature covers (v0.3): no other message starts so. */
export const RECEIPT_DOMAIN = "x402+cbor/v0.3/receipt";
/** Bytes of one salt; one per claim part. */
export const RECEIPT_SALT_BYTES = 16;
/** Bytes of one commitment (SHA-256). */
export const RECEIPT_COMMITMENT_BYTES = 32;

/** The commitment to one claim part: SHA-256(salt ‖ canonical CBOR of the part). */
export function commitClaimPart(salt: Uint8Array, part: CborValue): Uint8Array {
  return sha256(salt, encodeCanonical(part));
}

/**
 * What the facilitator signs for a receipt: the canonical CBOR of `[RECEIPT_DOMAIN, [c0, …, c5]]`,
 * the six commitments in claim order. Revealing or hiding parts never changes these bytes.
 */
export function receiptSignedBytes(commitments: readonly Uint8Array[]): Uint8Array {
  if (commitments.length !== 6 || commitments.some((c) => c.length !== RECEIPT_COMMITMENT_BYTES)) {
    throw new CborError("wrong_value", "expected six 32-byte commitments", "receipt.commitments");
  }
  return encodeCanonical([RECEIPT_DOMAIN, [...commitments]]);
}

/**
 * A receipt's digest: SHA-256 of the bytes its signature covers, as `sha256:<hex>`. The same for a
 * receipt and every restriction of it, so revocations and aggregates name either form.
 */
export function receiptDigestOf(commitments: readonly Uint8Array[]): string {
  return `sha256:${sha256Hex(receiptSignedBytes(commitments))}`;
}

/**
 * Why a receipt's signature does not hold, or `undefined` when it does: the signer must be
 * `facilitatorKey` (constant-time compare) and the signature its over {@link receiptSignedBytes}.
 */
export function receiptSignatureProblem(
  commitments: readonly Uint8Array[],
  signature: Uint8Array,
  signer: Uint8Array,
  facilitatorKey: Uint8Array,
): string | undefined {
  if (!sameKey(signer, facilitatorKey)) return "signed by another key than the facilitator's";
  if (!verifySignature(facilitatorKey, receiptSignedBytes(commitments), signature)) {
    return "the signature does not match the receipt's commitments";
  }
  return undefined;
}
