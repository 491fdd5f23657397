import type { ml_dsa65 as MlDsa65 } from "@noble/post-quantum/ml-dsa.js";
import type { ed25519 as NobleEd25519 } from "@noble/curves/ed25519";
import { randomBytes, sha256Hex } from "../../common/digests.js";
import { bytesOfCheckedHex, hexOfBytes } from "../../common/bytes.js";
import { nodeBuiltin } from "../../common/nodeBuiltin.js";
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

/** The part of `node:crypto` used for Ed25519 on Node (OpenSSL checks a signature several times faster). */
interface NodeKeyObject {
  export(options: { format: "der"; type: "spki" }): Uint8Array;
}
interface NodeSigning {
  createPublicKey(key: NodeKeyObject | { key: Uint8Array; format: "der"; type: "spki" }): NodeKeyObject;
  createPrivateKey(key: { key: Uint8Array; format: "der"; type: "pkcs8" }): NodeKeyObject;
  sign(algorithm: null, message: Uint8Array, key: NodeKeyObject): Uint8Array;
  verify(algorithm: null, message: Uint8Array, key: NodeKeyObject, signature: Uint8Array): boolean;
}

const NODE = nodeBuiltin<NodeSigning>("node:crypto");
/** Node's `require`, for the packages loaded on first need (synchronously, so signing stays synchronous). */
const nodeRequire = nodeBuiltin<{ createRequire(url: string): (id: string) => unknown }>(
  "node:module",
)?.createRequire(import.meta.url);

/**
 * A package loaded when first needed: on Node by `require` (synchronous; Node ≥ 20.19 requires an ES module),
 * elsewhere by `import()` begun when this module loads (no `require` there), ready by the first request.
 */
function lazyPackage<T>(load: () => Promise<T>, required: () => T, eager: boolean): () => T {
  let loaded: T | undefined;
  if (nodeRequire === undefined && eager) void load().then((module) => (loaded = module));
  return () => {
    if (loaded !== undefined) return loaded;
    if (nodeRequire === undefined) throw new Error("a signature package is still loading; retry shortly");
    return (loaded = required());
  };
}

/** ML-DSA-65, required by the first ML-DSA key or signature met, not by importing the package: most payers use Ed25519. */
const mlDsa65 = lazyPackage(
  async () => (await import("@noble/post-quantum/ml-dsa.js")).ml_dsa65,
  () => (nodeRequire?.("@noble/post-quantum/ml-dsa.js") as { ml_dsa65: typeof MlDsa65 }).ml_dsa65,
  true,
);

/** Ed25519 in JavaScript, where the runtime has no `node:crypto`. */
const nobleEd25519 = lazyPackage(
  async () => (await import("@noble/curves/ed25519")).ed25519,
  () => (nodeRequire?.("@noble/curves/ed25519") as { ed25519: typeof NobleEd25519 }).ed25519,
  NODE === undefined,
);

// DER prefixes that wrap a raw Ed25519 key for node:crypto (RFC 8410).
const ED25519_SPKI_PREFIX = bytesOfCheckedHex("302a300506032b6570032100");
const ED25519_PKCS8_PREFIX = bytesOfCheckedHex("302e020100300506032b657004220420");

function prefixed(prefix: Uint8Array, bytes: Uint8Array): Uint8Array {
  const joined = new Uint8Array(prefix.length + bytes.length);
  joined.set(prefix);
  joined.set(bytes, prefix.length);
  return joined;
}

/** The algorithm a public key is for, by its length: 32 bytes Ed25519, 1952 bytes ML-DSA-65. */
export function algorithmOf(publicKey: Uint8Array): SignatureAlgorithm | undefined {
  if (publicKey.length === ED25519_PUBLIC_KEY_BYTES) return "ed25519";
  if (publicKey.length === ML_DSA_65_PUBLIC_KEY_BYTES) return "ml-dsa-65";
  return undefined;
}

/** Ed25519 public keys met lately, parsed (parsing one cost about as much as checking a signature). */
const ed25519Keys = new Map<string, NodeKeyObject>();
const ED25519_KEYS_KEPT = 1_024;

/** `publicKey` (32 raw bytes) as node:crypto's key, parsed once while it is among the last 1,024 met. */
function ed25519Key(node: NodeSigning, publicKey: Uint8Array): NodeKeyObject {
  const id = hexOfBytes(publicKey);
  let key = ed25519Keys.get(id);
  if (key === undefined) {
    key = node.createPublicKey({
      key: prefixed(ED25519_SPKI_PREFIX, publicKey),
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
    if (algorithm === "ed25519")
      return NODE !== undefined
        ? NODE.verify(null, message, ed25519Key(NODE, publicKey), signature)
        : nobleEd25519().verify(signature, message, publicKey, { zip215: false });
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
    if (NODE === undefined) {
      const noble = nobleEd25519();
      const publicKey = noble.getPublicKey(ownSeed);
      return { algorithm, publicKey, seed: ownSeed, sign: (message) => noble.sign(message, ownSeed) };
    }
    const node = NODE;
    const privateKey = node.createPrivateKey({
      key: prefixed(ED25519_PKCS8_PREFIX, ownSeed),
      format: "der",
      type: "pkcs8",
    });
    const spki = node.createPublicKey(privateKey).export({ format: "der", type: "spki" });
    return {
      algorithm,
      publicKey: new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length)),
      seed: ownSeed,
      sign: (message) => new Uint8Array(node.sign(null, message, privateKey)),
    };
  }
  const mlDsa = mlDsa65();
  const { publicKey, secretKey } = mlDsa.keygen(ownSeed);
  return { algorithm, publicKey, seed: ownSeed, sign: (message) => mlDsa.sign(message, secretKey) };
}

/** How a payer is named in logs and facilitator answers: `ed25519:<sha256 of the key, hex>`. */
export function payerIdOf(publicKey: Uint8Array): string {
  return `${algorithmOf(publicKey) ?? "unknown"}:${sha256Hex(publicKey)}`;
}
