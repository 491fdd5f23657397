import { utf8Bytes } from "../../common/bytes.js";
/**
 * What a delegation grant lets its delegate pay (v0.3): the grant claim's `object`, as text.
 *
 * - `*`: any merchant, any service;
 * - `<merchant>`: every service of one merchant (its `merchant_pseudonym`);
 * - `<merchant>#<service>`: one service (`service_id`) of one merchant.
 *
 * Each name is percent-encoded: every UTF-8 byte outside `A–Z a–z 0–9 - . _ ~ :` is `%XX` (upper-case
 * hex), so `*`, `#` and `%` never occur raw inside a name and a scope has exactly one spelling:
 * `merchant:acme#GET%20%2Fapi%2Fapy`. A text that is not this canonical spelling is not a scope.
 */
export type DelegationScope =
  | { kind: "any" }
  | { kind: "merchant"; merchant: string }
  | { kind: "service"; merchant: string; service: string };

export const ANY_SCOPE = "*";
const SEPARATOR = "#";
const UNESCAPED = /^[A-Za-z0-9\-._~:]$/;

/** The scope's one canonical spelling (the grant's `object`). */
export function formatScope(scope: DelegationScope): string {
  if (scope.kind === "any") return ANY_SCOPE;
  if (scope.merchant === "") throw new RangeError("a scope names a non-empty merchant");
  if (scope.kind === "merchant") return escapeName(scope.merchant);
  if (scope.service === "") throw new RangeError("a scope names a non-empty service");
  return `${escapeName(scope.merchant)}${SEPARATOR}${escapeName(scope.service)}`;
}

/** Read a grant's `object`; `undefined` when it is not a canonical scope. */
export function parseScope(text: string): DelegationScope | undefined {
  if (text === ANY_SCOPE) return { kind: "any" };
  const parts = text.split(SEPARATOR);
  if (parts.length > 2) return undefined;
  const names = parts.map(unescapeName);
  if (names.some((name) => name === undefined || name === "")) return undefined;
  const [merchant, service] = names as [string, string | undefined];
  const scope: DelegationScope =
    service === undefined ? { kind: "merchant", merchant } : { kind: "service", merchant, service };
  return formatScope(scope) === text ? scope : undefined;
}

/** Whether a payment to `merchant` for `service` is within `scope`. */
export function scopeCovers(scope: DelegationScope, merchant: string, service: string): boolean {
  if (scope.kind === "any") return true;
  if (scope.merchant !== merchant) return false;
  return scope.kind === "merchant" || scope.service === service;
}

function escapeName(name: string): string {
  let out = "";
  for (const char of name) {
    if (UNESCAPED.test(char)) out += char;
    else for (const byte of utf8Bytes(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function unescapeName(text: string): string | undefined {
  if (!/^(?:[A-Za-z0-9\-._~:]|%[0-9A-F]{2})*$/.test(text)) return undefined;
  const latin1 = text.replace(/%([0-9A-F]{2})|./gs, (match, hex: string | undefined) =>
    hex === undefined ? match : String.fromCharCode(Number.parseInt(hex, 16)),
  );
  // Every character is one byte: checked above to be unreserved ASCII or a %XX escape.
  const bytes = Uint8Array.from(latin1, (char) => char.charCodeAt(0));
  const decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    return decoded.decode(bytes);
  } catch {
    return undefined;
  }
}
