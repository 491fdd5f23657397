import { BaseError } from "../common/BaseError.js";

/** A route key compiled for matching: `"GET /api/metrics/:userAddress"`, `"/users/[id]"`, `"/files/*"`, `"*"`. */
export interface RoutePattern {
  key: string;
  /** Upper-case method, or undefined for any method (a key without one, or `*`). */
  method: string | undefined;
  /** Literal segments (lower-cased unless compiled case-sensitive), or null where a parameter stands. */
  segments: Array<string | null>;
  /** A trailing `/*`: matches any number of further segments (zero included, so the base path too). */
  wildcard: boolean;
  /**
   * For a path the segment trie cannot hold (a `*` other than a trailing `/*`, a parameter inside a
   * segment): the whole decoded, normalised path (lower-cased unless case-sensitive) must match it.
   */
  glob?: RegExp | undefined;
  /** Higher wins when several patterns match: literals beat params beat wildcards; a method beats none. */
  specificity: number;
}

export class RouteKeyError extends BaseError {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super("invalid_route_key", `route ${JSON.stringify(key)}: ${reason}`, { details: { key } });
  }
}

/** The methods every route table knows: others (TRACE, PURGE, PROPFIND…) are refused on priced paths unless a route names them. */
export const STANDARD_METHODS: readonly string[] = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
];

/**
 * What a route key may name: the methods Node's HTTP parser accepts (Node 20's `http.METHODS`, written
 * here so the route table stays free of IO modules; a test holds it to Node's), except CONNECT (a tunnel, never routed).
 */
export const ROUTABLE_METHODS: ReadonlySet<string> = new Set(
  (
    "ACL BIND CHECKOUT COPY DELETE GET HEAD LINK LOCK M-SEARCH MERGE MKACTIVITY MKCALENDAR MKCOL MOVE " +
    "NOTIFY OPTIONS PATCH POST PROPFIND PROPPATCH PURGE PUT REBIND REPORT SEARCH SOURCE SUBSCRIBE TRACE " +
    "UNBIND UNLINK UNLOCK UNSUBSCRIBE"
  ).split(" "),
);

/** A whole-segment parameter, in either official spelling: `:userId` or `[userId]`. */
const PARAM_SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|\[[^\]/]+\])$/;
/** A parameter anywhere in a segment, as the official matcher reads it (`/v:version`, `/[id].json`). */
const PARAM_ANYWHERE = /\[[^\]/]+\]|:[A-Za-z_][A-Za-z0-9_]*/y;
/** What a key's path may not hold: encodings and separators servers disagree on, and parts of a URL that are never a path. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a key may not hold
const UNWRITABLE = /[%\\?#\s\0-\x1f\x7f]/;

/**
 * Compile a route key, reading every form the official `@x402/core` matcher reads as it reads it: a
 * method or none (`*` also means any method), `:param` and `[param]` (a segment or part of one), `*`
 * anywhere (any characters, `/` included), a trailing `/*` that also matches the base path, and `*` alone
 * (every path). Literals are lower-cased (matched in any case, as the official matcher and Express do)
 * unless `caseSensitive`. What it cannot read the same way it refuses, naming the key.
 */
export function compileRoutePattern(key: string, options: { caseSensitive?: boolean } = {}): RoutePattern {
  const parts = key.trim().split(/\s+/);
  if (parts.length > 2) throw new RouteKeyError(key, 'expected "METHOD /path" or "/path"');
  const [methodPart, path] = (parts.length === 2 ? parts : [undefined, parts[0]]) as [
    string | undefined,
    string,
  ];
  const upper = methodPart?.toUpperCase();
  const method = upper === "*" ? undefined : upper;
  if (method !== undefined && !ROUTABLE_METHODS.has(method)) {
    throw new RouteKeyError(key, `unknown method ${JSON.stringify(methodPart)}`);
  }
  if (path === "*") return { key, method, segments: [], wildcard: true, specificity: methodBonus(method) };
  if (!path.startsWith("/") && !path.startsWith("*")) {
    throw new RouteKeyError(key, "the path must start with / (or be *)");
  }
  if (UNWRITABLE.test(path)) {
    throw new RouteKeyError(key, "write the path unencoded, without \\, ?, # or spaces");
  }
  const wildcard = path.endsWith("/*");
  const raw = (wildcard ? path.slice(0, -2) : path).split("/").filter((segment) => segment !== "");
  let specificity = methodBonus(method) + (wildcard ? 0 : 10);
  let simple = true;
  for (const segment of raw) {
    if (segment === "." || segment === "..") throw new RouteKeyError(key, "dot segments are not allowed");
    if (PARAM_SEGMENT.test(segment)) specificity += 20;
    else if (segment.includes("*") || PARAM_ANYWHERE_TEST.test(segment)) {
      simple = false;
      specificity += 5;
    } else if (/[[\]]/.test(segment)) {
      throw new RouteKeyError(key, `bad parameter ${segment}: write [name] or :name`);
    } else if (segment.startsWith(":")) {
      throw new RouteKeyError(key, `bad parameter ${segment}`);
    } else specificity += 30;
  }
  const fold = (text: string) => (options.caseSensitive ? text : text.toLowerCase());
  if (simple) {
    const segments = raw.map((segment) => (PARAM_SEGMENT.test(segment) ? null : fold(segment)));
    return { key, method, segments, wildcard, specificity };
  }
  const body = raw.map((segment) => globSegment(key, segment, fold)).join("/");
  const leading = path.startsWith("*") ? "" : "/";
  const glob = new RegExp(`^${leading}${body}${wildcard ? "(?:/.*)?" : ""}$`, "s");
  return { key, method, segments: [], wildcard, glob, specificity };
}

const PARAM_ANYWHERE_TEST = /\[[^\]/]+\]|:[A-Za-z_]/;

function methodBonus(method: string | undefined): number {
  return method === undefined ? 0 : 1;
}

/** One segment of a glob as a regular expression: `*` any characters, a parameter one or more non-`/`, the rest literal. */
function globSegment(key: string, segment: string, fold: (text: string) => string): string {
  let out = "";
  for (let i = 0; i < segment.length;) {
    const char = segment[i] as string;
    if (char === "*") {
      out += ".*";
      i++;
      continue;
    }
    PARAM_ANYWHERE.lastIndex = i;
    const param = PARAM_ANYWHERE.exec(segment);
    if (param !== null) {
      out += "[^/]+";
      i += param[0].length;
      continue;
    }
    if (char === "[" || char === "]")
      throw new RouteKeyError(key, `bad parameter in ${segment}: write [name] or :name`);
    out += fold(char).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    i++;
  }
  return out;
}

/**
 * Whether `pattern` matches a method and a normalised, decoded path split into segments (lower-cased,
 * unless the pattern was compiled case-sensitive). A `GET` route also prices `HEAD`, which Express serves
 * from the same handler; a route without a method prices every method, `OPTIONS` included (the
 * official reading; a CORS preflight there is the flow's to answer).
 */
export function patternMatches(pattern: RoutePattern, method: string, segments: readonly string[]): boolean {
  if (
    pattern.method !== undefined &&
    pattern.method !== method &&
    !(pattern.method === "GET" && method === "HEAD")
  ) {
    return false;
  }
  if (pattern.glob !== undefined) return pattern.glob.test(`/${segments.join("/")}`);
  const expected = pattern.segments;
  if (pattern.wildcard ? segments.length < expected.length : segments.length !== expected.length)
    return false;
  for (let i = 0; i < expected.length; i++) {
    const literal = expected[i];
    if (literal !== null && literal !== segments[i]) return false;
  }
  return true;
}
