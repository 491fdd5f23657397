import { BaseError } from "../common/BaseError.js";
import { base64OfText } from "../common/bytes.js";
import { decodeBase64 } from "./decodeBase64.js";

/** Base64 (standard alphabet, padded) of the UTF-8 JSON of `value`: the x402 V2 header encoding. */
export function encodeBase64Json(value: unknown): string {
  return base64OfText(JSON.stringify(value));
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

/** Stateless: `decode` without `stream` keeps no state between calls, so one decoder serves every header. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Text that could spell a key the decoder drops: one of the words, or a `\u` escape (which could spell
 * one). Anything else cannot name such a key, so it skips the reviver, which costs most of a decode.
 */
const MAY_NAME_PROTOTYPE_KEY = /__proto__|constructor|prototype|\\u/;

/**
 * Decode a base64 JSON header value. Accepts padded or unpadded base64 and base64url.
 * Rejects anything else with a {@link Base64JsonError}; never returns a value built from garbage.
 * `__proto__`, `constructor` and `prototype` keys are dropped at any depth, so no parsed object can
 * pollute prototypes.
 */
export function decodeBase64Json(text: string): unknown {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(text);
  } catch (error) {
    throw new Base64JsonError("base64", (error as Error).message);
  }
  let json: string;
  try {
    json = UTF8.decode(bytes);
  } catch {
    throw new Base64JsonError("utf8", "decoded bytes are not UTF-8");
  }
  try {
    return MAY_NAME_PROTOTYPE_KEY.test(json) ? JSON.parse(json, dropPrototypeKeys) : JSON.parse(json);
  } catch {
    throw new Base64JsonError("json", "decoded text is not JSON");
  }
}

function dropPrototypeKeys(key: string, value: unknown): unknown {
  return key === "__proto__" || key === "constructor" || key === "prototype" ? undefined : value;
}
