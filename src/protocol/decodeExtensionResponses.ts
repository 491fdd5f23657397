import { decodeBase64Json } from "./base64Json.js";

/** The fields of an extension's response that are logged, as `@x402/core` logs them; nothing else is kept. */
const LOGGED_FIELDS = ["status", "rejectedReason", "reason", "code"] as const;
/** Largest `EXTENSION-RESPONSES` header read, in characters. */
const MAX_HEADER_CHARS = 8 * 1024;

export type ExtensionResponses = Record<string, Partial<Record<(typeof LOGGED_FIELDS)[number], string>>>;

/**
 * A facilitator's `EXTENSION-RESPONSES` header (base64 JSON, an object keyed by extension, e.g. Bazaar's
 * listing verdict on `/settle`): per extension, its `status`, `rejectedReason`, `reason` and `code` as text.
 * Anything else (not base64 JSON, not an object, too long) is `undefined`: diagnostics never fail a payment.
 */
export function decodeExtensionResponses(header: string | null | undefined): ExtensionResponses | undefined {
  if (header === null || header === undefined || header.length === 0 || header.length > MAX_HEADER_CHARS)
    return undefined;
  let decoded: unknown;
  try {
    decoded = decodeBase64Json(header);
  } catch {
    return undefined;
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) return undefined;
  const responses: ExtensionResponses = {};
  for (const [extension, value] of Object.entries(decoded)) {
    const source = typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
    const kept: ExtensionResponses[string] = {};
    for (const field of LOGGED_FIELDS) {
      const item = (source as Record<string, unknown>)[field];
      if (typeof item === "string" || typeof item === "number" || typeof item === "boolean")
        kept[field] = String(item).slice(0, 200);
    }
    Object.defineProperty(responses, extension, { value: kept, enumerable: true, writable: true });
  }
  return responses;
}
