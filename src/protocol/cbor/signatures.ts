import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import { createRequire } from "node:module";
import type { ml_dsa65 as MlDsa65 } from "@noble/post-quantum/ml-dsa.js";
import { ED25519_PUBLIC_KEY_BYTES, ML_DSA_65_PUBLIC_KEY_BYTES } from "./profile.js";

export type SignatureAlgorithm = "ed25519" | "ml-dsa-65";

/** A key that signs claims: the payer's intent key, or a facilitator's receipt key. */
export interface SigningKey {
  algorithm: SignatureAlgorithm;
  publicKey: Uint8Array;
  /** The 32-byte seed the key was derived from (keep it secret). */
  seed: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

const require = createRequire(import.meta.url);

/**
 * ML-DSA-65, required by the first ML-DSA key or signature met, not by importing the package: most
 * payers use Ed25519. Synchronous (Node ≥ 20.19 requires an ES module) so signing stays synchronous.
 */
function mlDsa65(): typeof MlDsa65 {
  return (require("@noble/post-quantum/ml-dsa.js") as { ml_dsa65: typeof MlDsa65 }).ml_dsa65;
}

// DER prefixes that wrap a raw Ed25519 key for node:crypto (RFC 8410).
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The algorithm a public key is for, by its length: 32 bytes Ed25519, 1952 bytes ML-DSA-65. */
export function algorithmOf(publicKey: Uint8Array): SignatureAlgorithm | undefined {
  if (publicKey.length === ED25519_PUBLIC_KEY_BYTES) return "ed25519";
  if (publicKey.length === ML_DSA_65_PUBLIC_KEY_BYTES) return "ml-dsa-65";
  return undefined;
}

/** Ed25519 public keys met lately, parsed (parsing one cost about as much as checking a signature). */
const ed25519Keys = new Map<string, KeyObject>();
const ED25519_KEYS_KEPT = 1_024;

/** `publicKey` (32 raw bytes) as node:crypto's key, parsed once while it is among the last 1,024 met. */
function ed25519Key(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("hex");
  let key = ed25519Keys.get(id);
  if (key === undefined) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]),
      format: "der",
      type: "spki",
    });
    // Oldest first out: a payer flooding fresh keys only evicts, never grows the map.
    if (ed25519Keys.size >= ED25519_KEYS_KEPT) ed25519Keys.delete(ed25519Keys.keys().next().value as string);
    ed25519Keys.set(id, key);
  }
  return key;
}

/** Whether `signature` is `publicKey`'s over exactly `message`. Never throws: garbage is `false`. */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const algorithm = algorithmOf(publicKey);
  // Loaded outside the try: a broken install must fail loudly, not read as a bad signature.
  const mlDsa = algorithm === "ml-dsa-65" ? mlDsa65() : undefined;
  try {
    if (algorithm === "ed25519") return verify(null, message, ed25519Key(publicKey), signature);
    if (mlDsa !== undefined) return mlDsa.verify(signature, message, publicKey);
    return false;
  } catch {
    return false;
  }
}

/** An Ed25519 or ML-DSA-65 signing key, from a 32-byte seed (random when omitted). */
export function createSigningKey(
  algorithm: SignatureAlgorithm,
  seed: Uint8Array = randomBytes(32),
): SigningKey {
  if (seed.length !== 32) throw new RangeError("a signing key seed is 32 bytes");
  const ownSeed = new Uint8Array(seed);
  if (algorithm === "ed25519") {
    const privateKey = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, ownSeed]),
      format: "der",
      type: "pkcs8",
    });
    const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
    return {
      algorithm,
      publicKey: new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length)),
      seed: ownSeed,
      sign: (message) => new Uint8Array(sign(null, message, privateKey)),
    };
  }
  const mlDsa = mlDsa65();
  const { publicKey, secretKey } = mlDsa.keygen(ownSeed);
  return { algorithm, publicKey, seed: ownSeed, sign: (message) => mlDsa.sign(message, secretKey) };
}

/** How a payer is named in logs and facilitator answers: `ed25519:<sha256 of the key, hex>`. */
export function payerIdOf(publicKey: Uint8Array): string {
  return `${algorithmOf(publicKey) ?? "unknown"}:${createHash("sha256").update(publicKey).digest("hex")}`;
}
