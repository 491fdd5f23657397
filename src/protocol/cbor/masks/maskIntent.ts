import { randomBytes } from "node:crypto";
import type { CborMap, CborValue } from "../CborValue.js";
import { CLAIM_PARTS, claimPartValues, encodeClaim, type Claim, type ClaimPart } from "../Claim.js";
import { encodeCanonical } from "../encodeCanonical.js";
import { RECEIPT_SALT_BYTES, commitClaimPart } from "../receiptCommitments.js";
import { HIDDEN_PART_KEYS } from "./WireIntent.js";
import { MASK_INFO_ENCRYPTED_PREFIX, MASK_INFO_OPENINGS, sealToFacilitator } from "./maskHpke.js";
import type { RevelationMask } from "./RevelationMask.js";
import { standInZkProof } from "./standInZkProof.js";
import {
  HIDDEN_PAYER_OPENINGS_BYTES,
  HIDDEN_SUBJECT_SEALED_BYTES,
  encodePadded,
  hidesSubject,
} from "./maskPadding.js";

export interface MaskedIntent {
  /** The `payment_intent` bytes: the claim array with the hidden parts in their wire form. */
  paymentIntent: Uint8Array;
  /**
   * The PaymentSignature's `openings`: the Commit parts' salts and values and, when the subject is
   * hidden, the signature, sealed to the facilitator (padded then to a fixed size).
   */
  openings?: Uint8Array | undefined;
  /** The signature in clear: absent when the subject is hidden (it is inside `openings`). */
  signature?: Uint8Array | undefined;
  /** The salt of each Commit or Encrypted part: the payer's, to open the receipt parts committed with it. */
  salts: Partial<Record<ClaimPart, Uint8Array>>;
}

/**
 * Payer side: the intent as `mask` wants it on the wire. Each Commit part becomes `{ commit:
 * SHA-256(salt ‖ part) }` and its `[salt, part]` goes into the sealed `openings`; each Encrypted part
 * `{ hpke: seal([salt, part]) }`; each ZK part `{ zk: stand-in proof }`. Salts are 16 fresh bytes;
 * everything is sealed to `facilitatorKey` with the intent's context as AAD. `sign` signs the wire
 * bytes; when the mask hides the subject, the signature goes into the sealed openings (with a zero pad
 * to HIDDEN_PAYER_OPENINGS_BYTES) and an Encrypted subject is `[salt, key, pad]` of
 * HIDDEN_SUBJECT_SEALED_BYTES, so that nothing in clear verifies against a key and no length tells
 * the algorithm. An all-Open mask gives the plain claim bytes.
 */
export async function maskIntent(
  claim: Claim,
  mask: RevelationMask,
  facilitatorKey: Uint8Array | undefined,
  sign: (paymentIntent: Uint8Array) => Uint8Array,
): Promise<MaskedIntent> {
  const clear = encodeClaim(claim); // checks the claim
  if (CLAIM_PARTS.every((part) => mask.intent[part] === "Open"))
    return { paymentIntent: clear, signature: sign(clear), salts: {} };
  const values = claimPartValues(claim);
  if (facilitatorKey === undefined)
    throw new Error("this offer's mask hides parts: the facilitator's HPKE key is needed");
  const openings: CborMap = new Map();
  const salts: MaskedIntent["salts"] = {};
  const wire: CborValue[] = [];
  for (const [index, part] of CLAIM_PARTS.entries()) {
    const value = values[index] as CborValue;
    const tag = mask.intent[part];
    const salt = new Uint8Array(randomBytes(RECEIPT_SALT_BYTES));
    if (tag === "Commit" || tag === "Encrypted") salts[part] = salt;
    if (tag === "Open") wire.push(value);
    else if (tag === "Commit") {
      wire.push(new Map([[HIDDEN_PART_KEYS.Commit, commitClaimPart(salt, value)]]));
      openings.set(part, [salt, value]);
    } else if (tag === "Encrypted") {
      const plain =
        part === "subject"
          ? encodePadded((pad) => [salt, value, pad], HIDDEN_SUBJECT_SEALED_BYTES)
          : encodeCanonical([salt, value]);
      const sealed = await sealToFacilitator(
        facilitatorKey,
        plain,
        `${MASK_INFO_ENCRYPTED_PREFIX}${part}`,
        claim.context,
      );
      wire.push(new Map([[HIDDEN_PART_KEYS.Encrypted, sealed]]));
    } else wire.push(new Map([[HIDDEN_PART_KEYS.ZK, standInZkProof(part, claim.context)]]));
  }
  const paymentIntent = encodeCanonical(wire);
  const signature = sign(paymentIntent);
  const hidden = hidesSubject(mask);
  if (openings.size === 0 && !hidden) return { paymentIntent, signature, salts };
  const plain = hidden
    ? encodePadded(
        (pad) => new Map([...openings, ["signature", signature], ["pad", pad]]),
        HIDDEN_PAYER_OPENINGS_BYTES,
      )
    : encodeCanonical(openings);
  const sealedOpenings = await sealToFacilitator(facilitatorKey, plain, MASK_INFO_OPENINGS, claim.context);
  return { paymentIntent, openings: sealedOpenings, ...(hidden ? {} : { signature }), salts };
}
