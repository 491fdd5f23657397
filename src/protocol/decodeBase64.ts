import { Buffer } from "node:buffer";
import { BaseError } from "../common/BaseError.js";

/** Why a header value is not base64. */
export class Base64Error extends BaseError {
  constructor(message: string) {
    super("invalid_base64", message);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * The tolerant base64 of the payment headers: padded or unpadded, standard alphabet or base64url.
 * Throws {@link Base64Error} for anything else; never returns bytes decoded from garbage.
 */
export function decodeBase64(text: string): Buffer {
  const value = text.trim();
  if (value.length === 0) throw new Base64Error("empty value");
  if (!BASE64.test(value) && !BASE64URL.test(value)) throw new Base64Error("not base64 or base64url");
  const unpadded = value.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) throw new Base64Error("truncated base64");
  return Buffer.from(unpadded.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}
