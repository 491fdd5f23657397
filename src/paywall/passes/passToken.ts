import { sha256 } from "@noble/hashes/sha2";
import { utf8Bytes } from "../../common/bytes.js";

/**
 * A pass token (docs/passes.md, "The token"): `xp1.<body>.<signature>`, both parts base64url without
 * padding. The body is binary, big-endian:
 *
 * | bytes     | field                                                              |
 * | --------- | ------------------------------------------------------------------ |
 * | 0         | algorithm: 1 = HMAC-SHA256 (32-byte signature), 2 = Ed25519 (64)    |
 * | 1–16      | pass id (random)                                                   |
 * | 17–20     | expiry, epoch seconds                                              |
 * | 21–24     | requests bought (0: counted by time only)                          |
 * | 25–32     | scope tag: the first 8 bytes of SHA-256 of the scope's name        |
 * | 33        | payer length L (1–100)                                             |
 * | 34–34+L   | payer, printable ASCII without spaces                              |
 *
 * The signature covers the ASCII text `xp1.<body>`.
 */
export interface PassClaims {
  alg: PassAlgorithm;
  /** 32 lower-case hex digits. */
  id: string;
  expiresAtSeconds: number;
  /** Requests bought; 0 for a pass counted by time only. */
  requests: number;
  /** 16 lower-case hex digits: {@link scopeTag} of the scope. */
  scope: string;
  payer: string;
}

export type PassAlgorithm = 1 | 2;

/** A token read and split, its signature not checked yet. */
export interface ParsedPassToken {
  claims: PassClaims;
  /** The bytes the signature covers. */
  signed: Uint8Array;
  signature: Uint8Array;
}

export type PassTokenProblem =
  "too_long" | "prefix" | "shape" | "base64" | "length" | "algorithm" | "payer" | "signature_length";

export type ParsePassTokenResult =
  { ok: true; token: ParsedPassToken } | { ok: false; problem: PassTokenProblem };

export const PASS_TOKEN_PREFIX = "xp1.";
/** No token this gateway makes is longer; anything longer is refused before it is decoded. */
export const MAX_PASS_TOKEN_CHARS = 400;
const FIXED_BYTES = 34;
const MAX_PAYER = 100;
const SIGNATURE_BYTES: Record<PassAlgorithm, number> = { 1: 32, 2: 64 };

/** The 8-byte tag a token names its scope by, as 16 hex digits. */
export function scopeTag(scope: string): string {
  return hex(sha256(utf8Bytes(scope)).subarray(0, 8));
}

/** The text `xp1.<body>` a token's signature covers (the claims must be valid: see {@link parsePassToken}). */
export function encodePassBody(claims: PassClaims): string {
  const payer = utf8Bytes(claims.payer);
  const body = new Uint8Array(FIXED_BYTES + payer.length);
  const view = new DataView(body.buffer);
  body[0] = claims.alg;
  body.set(unhex(claims.id), 1);
  view.setUint32(17, claims.expiresAtSeconds);
  view.setUint32(21, claims.requests);
  body.set(unhex(claims.scope), 25);
  body[33] = payer.length;
  body.set(payer, FIXED_BYTES);
  return PASS_TOKEN_PREFIX + base64Url(body);
}

/** The whole token: the signed text, a dot, the signature. */
export function joinPassToken(signedText: string, signature: Uint8Array): string {
  return `${signedText}.${base64Url(signature)}`;
}

/**
 * Read a token strictly: the prefix, two base64url parts in their one canonical spelling, a body of exactly
 * its stated length, a known algorithm with a signature of its length, a printable payer. Never throws.
 */
export function parsePassToken(text: string): ParsePassTokenResult {
  if (text.length > MAX_PASS_TOKEN_CHARS) return { ok: false, problem: "too_long" };
  if (!text.startsWith(PASS_TOKEN_PREFIX)) return { ok: false, problem: "prefix" };
  const dot = text.indexOf(".", PASS_TOKEN_PREFIX.length);
  if (dot < 0 || text.indexOf(".", dot + 1) >= 0) return { ok: false, problem: "shape" };
  const body = fromBase64Url(text.slice(PASS_TOKEN_PREFIX.length, dot));
  const signature = fromBase64Url(text.slice(dot + 1));
  if (body === undefined || signature === undefined) return { ok: false, problem: "base64" };
  if (body.length < FIXED_BYTES + 1) return { ok: false, problem: "length" };
  const alg = body[0];
  if (alg !== 1 && alg !== 2) return { ok: false, problem: "algorithm" };
  const payerLength = body[33] as number;
  if (payerLength === 0 || payerLength > MAX_PAYER || body.length !== FIXED_BYTES + payerLength)
    return { ok: false, problem: "length" };
  let payer = "";
  for (let i = FIXED_BYTES; i < body.length; i++) {
    const byte = body[i] as number;
    if (byte <= 0x20 || byte >= 0x7f) return { ok: false, problem: "payer" };
    payer += String.fromCharCode(byte);
  }
  if (signature.length !== SIGNATURE_BYTES[alg]) return { ok: false, problem: "signature_length" };
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  return {
    ok: true,
    token: {
      claims: {
        alg,
        id: hex(body.subarray(1, 17)),
        expiresAtSeconds: view.getUint32(17),
        requests: view.getUint32(21),
        scope: hex(body.subarray(25, 33)),
        payer,
      },
      signed: utf8Bytes(text.slice(0, dot)),
      signature,
    },
  };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** base64url without padding. */
export function base64Url(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += ALPHABET[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += ALPHABET[n & 63]!;
  }
  return out;
}

/** base64url without padding, in its canonical spelling only (unused trailing bits zero); else undefined. */
function fromBase64Url(text: string): Uint8Array | undefined {
  if (text.length === 0 || text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (VALUES[code] as number) : -1;
    if (digit < 0) return undefined;
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 0xff;
    }
  }
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

function unhex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}
