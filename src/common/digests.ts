import { hmac } from "@noble/hashes/hmac";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2";
import { hexOfBytes } from "./bytes.js";
import { nodeBuiltin } from "./nodeBuiltin.js";

/** The part of `node:crypto` used here when the runtime has it (OpenSSL's SHA-256 is the faster on Node). */
interface NodeHashing {
  createHash(algorithm: "sha256"): NodeHash;
  createHmac(algorithm: "sha256", key: Uint8Array): NodeHash;
}
interface NodeHash {
  update(data: Uint8Array | string): NodeHash;
  digest(): Uint8Array;
  digest(encoding: "hex"): string;
}

const NODE = nodeBuiltin<NodeHashing>("node:crypto");
const ENCODER = new TextEncoder();

const asBytes = (data: Uint8Array | string) => (typeof data === "string" ? ENCODER.encode(data) : data);
/** A view of Node's `Buffer` digest as a plain `Uint8Array` (no copy). */
const plain = (bytes: Uint8Array) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** SHA-256 of the parts, in order (a string is taken as UTF-8). */
export function sha256(...parts: Array<Uint8Array | string>): Uint8Array {
  if (NODE !== undefined) {
    const hash = NODE.createHash("sha256");
    for (const part of parts) hash.update(part);
    return plain(hash.digest());
  }
  return webSha256(...parts);
}

/** {@link sha256} in JavaScript (`@noble/hashes`), where the runtime has no `node:crypto`. */
export function webSha256(...parts: Array<Uint8Array | string>): Uint8Array {
  if (parts.length === 1) return nobleSha256(asBytes(parts[0] as Uint8Array | string));
  const hash = nobleSha256.create();
  for (const part of parts) hash.update(asBytes(part));
  return hash.digest();
}

/** {@link sha256} as lower-case hex. */
export function sha256Hex(...parts: Array<Uint8Array | string>): string {
  if (NODE === undefined) return hexOfBytes(webSha256(...parts));
  const hash = NODE.createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** HMAC-SHA-256 of `data` (UTF-8 when a string) under `key`. */
export function hmacSha256(key: Uint8Array, data: Uint8Array | string): Uint8Array {
  if (NODE !== undefined) return plain(NODE.createHmac("sha256", key).update(data).digest());
  return webHmacSha256(key, data);
}

/** {@link hmacSha256} in JavaScript, where the runtime has no `node:crypto`. */
export function webHmacSha256(key: Uint8Array, data: Uint8Array | string): Uint8Array {
  return hmac(nobleSha256, key, asBytes(data));
}

/** Whether `a` and `b` hold the same bytes, in time that depends on their length only. */
export function equalBytesConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

/** `length` bytes from the runtime's cryptographic random source (Web Crypto). */
export function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** A random (version 4) UUID, from Web Crypto. */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID();
}
