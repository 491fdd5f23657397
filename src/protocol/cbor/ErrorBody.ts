import { CborError } from "./CborError.js";
import { CborFields } from "./CborFields.js";
import { MAX_CBOR_UINT, type CborMap, type CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";

/**
 * The error body a CBOR client gets (ours, v0.3): a canonical CBOR map `{ error, reason, details? }` —
 * the catalogue code, the one-line reason, and the details that are text, integers, booleans or lists
 * of text (what the JSON body's `details` says; anything else is left out, never turned into a float).
 */
export interface ErrorBody {
  error: string;
  reason: string;
  details: Map<string, CborValue>;
}

const WHAT = "ErrorBody";

export function encodeErrorBody(code: string, reason: string, details: Record<string, unknown>): Uint8Array {
  const body: CborMap = new Map<string, CborValue>([
    ["error", code],
    ["reason", reason],
  ]);
  const kept = new Map<string, CborValue>();
  for (const [name, value] of Object.entries(details)) {
    const cbor = plainValue(value);
    if (cbor !== undefined) kept.set(name, cbor);
  }
  if (kept.size > 0) body.set("details", kept);
  return encodeCanonical(body);
}

/** Read an error body (canonical, no other keys); throws {@link CborError} naming what is wrong. */
export function decodeErrorBody(bytes: Uint8Array): ErrorBody {
  const fields = CborFields.decode(bytes, WHAT);
  const error = fields.text("error");
  const reason = fields.text("reason");
  const details = fields.optional("details", () => fields.any("details")) ?? new Map<string, CborValue>();
  if (!(details instanceof Map)) throw new CborError("wrong_type", "expected a map", `${WHAT}.details`);
  fields.done();
  return { error, reason, details };
}

function plainValue(value: unknown): CborValue | undefined {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === "bigint") return value > -(2n ** 64n) && value <= MAX_CBOR_UINT ? value : undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === "string"))
    return [...(value as string[])];
  return undefined;
}
