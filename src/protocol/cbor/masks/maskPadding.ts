import type { CborValue } from "../CborValue.js";
import { encodeCanonical } from "../encodeCanonical.js";
import type { RevelationMask } from "./RevelationMask.js";

/**
 * Sizes a hidden payer's sealed values are padded to, so that their length never tells the signing
 * algorithm (docs/cbor.md, Revelation masks). The openings when the subject is hidden hold the
 * signature (ML-DSA-65: 3,309 bytes) and, for a Commit subject, the key (ML-DSA-65: 1,952 bytes):
 * 6,144 bytes covers both with room for an EVM (65 bytes) or Stark (a few 32-byte felts) signature.
 * An Encrypted subject's `[salt, key, pad]` is 2,304 bytes (an ML-DSA-65 key, its salt and the least pad fit).
 */
export const HIDDEN_PAYER_OPENINGS_BYTES = 6_144;
export const HIDDEN_SUBJECT_SEALED_BYTES = 2_304;

/** Whether the mask hides the intent's subject: then no signature travels in clear. */
export function hidesSubject(mask: RevelationMask): boolean {
  return mask.intent.subject !== "Open";
}

/** The least pad: 256 bytes, so that its CBOR head is always 3 bytes and any size is reachable exactly. */
export const MIN_PAD_BYTES = 256;

/**
 * The canonical bytes of `build(pad)` at exactly `size` bytes, `pad` being a byte string of zeros
 * sized to fill (256 to 65,535 bytes: a 3-byte head, so no size falls between two head lengths).
 * Throws RangeError when the value leaves less room than that.
 */
export function encodePadded(build: (pad: Uint8Array) => CborValue, size: number): Uint8Array {
  // The value with an empty pad has a 1-byte head for it: the real pad's head is 3 bytes.
  const length = size - (encodeCanonical(build(new Uint8Array(0))).length - 1) - 3;
  if (length < MIN_PAD_BYTES || length > 0xffff)
    throw new RangeError(`does not fit in ${size} bytes with a pad of at least ${MIN_PAD_BYTES}`);
  const bytes = encodeCanonical(build(new Uint8Array(length)));
  if (bytes.length !== size) throw new RangeError(`padded to ${bytes.length} bytes, not ${size}`);
  return bytes;
}

/** Whether `pad` is a byte string of zeros (a padded value's filler carries nothing). */
export function isZeroPad(pad: unknown): pad is Uint8Array {
  return pad instanceof Uint8Array && pad.every((byte) => byte === 0);
}
