import type * as StarknetModule from "starknet";

/** The Stark curve of starknet.js (`ec.starkCurve`), passed in so that callers choose how starknet loads. */
type StarkCurve = (typeof StarknetModule)["ec"]["starkCurve"];

/**
 * Whether `[r, s]` is the Stark key's ECDSA signature of `hash`. The key is the x coordinate only, so
 * either point with that x is accepted, as Cairo's `check_ecdsa_signature` does. Never throws.
 */
export function verifyStarkKeySignature(
  curve: StarkCurve,
  starkKey: string | bigint,
  hash: string,
  words: readonly string[],
): boolean {
  if (words.length !== 2) return false;
  const x = BigInt(starkKey).toString(16).padStart(64, "0");
  for (const prefix of ["02", "03"]) {
    try {
      const signature = new curve.Signature(BigInt(words[0]!), BigInt(words[1]!));
      if (curve.verify(signature, hash, `${prefix}${x}`)) return true;
    } catch {
      // not a point of the curve, or r/s out of range: not this key's signature
    }
  }
  return false;
}
