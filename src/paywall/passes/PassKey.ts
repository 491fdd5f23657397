import { ed25519 } from "@noble/curves/ed25519";
import { hmac } from "@noble/hashes/hmac";
import { sha256 } from "@noble/hashes/sha2";
import { utf8Bytes } from "../../common/bytes.js";
import type { PassAlgorithm } from "./passToken.js";

/** What signs the pass tokens a gateway issues and checks those it is shown. */
export interface PassKey {
  readonly alg: PassAlgorithm;
  sign(message: Uint8Array): Uint8Array;
  /** Whether `signature` is this key's over `message` (constant time for HMAC). */
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** HMAC-SHA256 with a secret every gateway that shares passes shares (at least 32 characters). */
export function hmacPassKey(secret: string): PassKey {
  const key = utf8Bytes(secret);
  return {
    alg: 1,
    sign: (message) => hmac(sha256, key, message),
    verify: (message, signature) => sameBytes(hmac(sha256, key, message), signature),
  };
}

/**
 * Ed25519: gateways sign with the private key (32 bytes, hex); anything holding the public key can check a
 * token. Slower to check than HMAC (see docs/passes.md).
 */
export function ed25519PassKey(privateKeyHex: string): PassKey {
  const secret = Uint8Array.from(privateKeyHex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  const publicKey = ed25519.getPublicKey(secret);
  return {
    alg: 2,
    sign: (message) => ed25519.sign(message, secret),
    verify: (message, signature) => {
      try {
        return ed25519.verify(signature, message, publicKey);
      } catch {
        return false;
      }
    },
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
