import { Buffer } from "node:buffer";
import { BaseError } from "../common/BaseError.js";

/** Base64 (standard alphabet, padded) of the UTF-8 JSON of `value`: the x402 V2 header encoding. */
export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

/** Why a header value could not be decoded; `stage` says which layer failed. */
export class Base64JsonError extends BaseError {
  constructor(
    readonly stage: "base64" | "utf8" | "json",
    message: string,
  ) {
    super(`invalid_${stage}`, message, { details: { stage } });
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decode a base64 JSON header value. Accepts padded or unpadded base64 and base64url.
 * Rejects anything else with a {@link Base64JsonError}; never returns a value built from garbage.
 * The JSON is parsed with a reviver that drops `__proto__` keys, so no parsed object can pollute prototypes.
 */
export function decodeBase64Json(text: string): unknown {
  const value = text.trim();
  if (value.length === 0) throw new Base64JsonError("base64", "empty value");
  if (!BASE64.test(value) && !BASE64URL.test(value)) {
    throw new Base64JsonError("base64", "not base64 or base64url");
  }
  const unpadded = value.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) throw new Base64JsonError("base64", "truncated base64");
  const bytes = Buffer.from(unpadded.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  let json: string;
  try {
    json = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Base64JsonError("utf8", "decoded bytes are not UTF-8");
  }
  try {
    return JSON.parse(json, dropPrototypeKeys);
  } catch {
    throw new Base64JsonError("json", "decoded text is not JSON");
  }
}

function dropPrototypeKeys(key: string, value: unknown): unknown {
  return key === "__proto__" || key === "constructor" || key === "prototype" ? undefined : value;
}
