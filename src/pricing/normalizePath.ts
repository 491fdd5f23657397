/** Why a path cannot be matched safely. */
export type PathRejection =
  | "encoded_slash"
  | "backslash"
  | "malformed_percent_encoding"
  | "not_absolute"
  /** A lenient server could read the path as a different priced route (`;params`, double encoding…). */
  | "lenient_reading"
  /** Too many lenient readings to check: hostile by construction. */
  | "too_many_readings"
  /** With dot segments left unresolved (as the official matcher and Express's router read it), another priced route. */
  | "dot_segments"
  /** A leading `//`, which `new URL(target, base)` reads as a host, leaves a path some route prices. */
  | "authority"
  /** Under case-sensitive matching, the path in another case is priced (the official matches in any case). */
  | "case_variant"
  /** The request target is not a path (a star before a path, `host:port`): servers that resolve it against a base would reach a path. */
  | "not_origin_form";

export type NormalizedPath = { ok: true; path: string } | { ok: false; reason: PathRejection };

const HEX = "0123456789ABCDEF";

/** What a path must contain for normalisation to change more than a trailing slash. */
const ALREADY_NORMAL_BREAKERS = /[%\\#]|\/\/|\/\.(?:\/|\.|$)|\/\/$/;

function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2d || // -
    code === 0x2e || // .
    code === 0x5f || // _
    code === 0x7e // ~
  );
}

function hexValue(char: string | undefined): number {
  if (char === undefined) return -1;
  return HEX.indexOf(char.toUpperCase());
}

/**
 * The one path the paywall prices and forwards: percent-encoded unreserved characters decoded (other
 * escapes kept, upper-cased), dot segments resolved, repeated slashes collapsed, trailing slash dropped.
 * Encoded `/` or `\` and raw `\` are rejected: servers disagree on what they mean. A raw `#` ends the
 * path, as it does for Express and http-proxy (the fragment is never part of what is served).
 * Pure and total: never throws.
 */
export function normalizePath(
  rawPath: string,
  options?: {
    /** Leave `.` and `..` segments as they are (how a matcher that does not resolve them reads the path). */
    keepDotSegments?: boolean;
    /** Keep an encoded `/` or `\\` as an escape inside its segment rather than refuse the path. */
    keepEncodedSeparators?: boolean;
  },
): NormalizedPath {
  if (!rawPath.startsWith("/")) return { ok: false, reason: "not_absolute" };
  const fragment = rawPath.indexOf("#");
  if (fragment !== -1) rawPath = rawPath.slice(0, fragment);
  // Fast path, most requests: nothing to decode, no dot segment, no empty segment.
  if (!ALREADY_NORMAL_BREAKERS.test(rawPath) && options === undefined) {
    return { ok: true, path: rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath };
  }
  let decoded = "";
  for (let i = 0; i < rawPath.length; i++) {
    const char = rawPath[i] as string;
    if (char === "\\") return { ok: false, reason: "backslash" };
    if (char !== "%") {
      decoded += char;
      continue;
    }
    const high = hexValue(rawPath[i + 1]);
    const low = hexValue(rawPath[i + 2]);
    if (high < 0 || low < 0) return { ok: false, reason: "malformed_percent_encoding" };
    const code = high * 16 + low;
    if ((code === 0x2f || code === 0x5c) && options?.keepEncodedSeparators !== true)
      return { ok: false, reason: "encoded_slash" };
    decoded += isUnreserved(code) ? String.fromCharCode(code) : `%${HEX[high]}${HEX[low]}`;
    i += 2;
  }
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (options?.keepDotSegments === true) {
      if (segment !== "") segments.push(segment);
    } else if (segment === "" || segment === ".") continue;
    else if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return { ok: true, path: `/${segments.join("/")}` };
}
