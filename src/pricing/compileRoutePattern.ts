import { BaseError } from "../common/BaseError.js";

/** A route key compiled for matching: `"GET /api/metrics/:userAddress"`, `"/files/*"`. */
export interface RoutePattern {
  key: string;
  /** Upper-case method, or undefined for any method. */
  method: string | undefined;
  /** Literal segments (lower-cased unless compiled case-sensitive), or null where a `:param` stands. */
  segments: Array<string | null>;
  /** A trailing `*`: matches any number of further segments (zero included). */
  wildcard: boolean;
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

/** Compile a route key; literals are lower-cased (matched case-insensitively, as Express does) unless `caseSensitive`. */
export function compileRoutePattern(key: string, options: { caseSensitive?: boolean } = {}): RoutePattern {
  const parts = key.trim().split(/\s+/);
  if (parts.length > 2) throw new RouteKeyError(key, 'expected "METHOD /path" or "/path"');
  const [methodPart, pathPart] = parts.length === 2 ? parts : [undefined, parts[0]];
  const method = methodPart?.toUpperCase();
  if (method !== undefined && !ROUTABLE_METHODS.has(method)) {
    throw new RouteKeyError(key, `unknown method ${JSON.stringify(methodPart)}`);
  }
  if (pathPart === undefined || !pathPart.startsWith("/")) {
    throw new RouteKeyError(key, "the path must start with /");
  }
  const raw = pathPart.split("/").filter((segment) => segment !== "");
  const wildcard = raw[raw.length - 1] === "*";
  if (wildcard) raw.pop();
  const segments: Array<string | null> = [];
  let specificity = method === undefined ? 0 : 1;
  for (const segment of raw) {
    if (segment === "*") throw new RouteKeyError(key, "`*` may only end a path");
    if (segment === "." || segment === "..") throw new RouteKeyError(key, "dot segments are not allowed");
    if (segment.startsWith(":")) {
      if (!/^:[A-Za-z_][A-Za-z0-9_]*$/.test(segment))
        throw new RouteKeyError(key, `bad parameter ${segment}`);
      segments.push(null);
      specificity += 20;
    } else {
      if (/[%\\]/.test(segment)) throw new RouteKeyError(key, "write the path unencoded, without \\");
      segments.push(options.caseSensitive ? segment : segment.toLowerCase());
      specificity += 30;
    }
  }
  if (!wildcard) specificity += 10;
  return { key, method, segments, wildcard, specificity };
}

/**
 * Whether `pattern` matches a method and a normalised path split into segments (lower-cased, unless the
 * pattern was compiled case-sensitive).
 * A `GET` route also prices `HEAD`, which Express serves from the same handler. A route without a
 * method does not price `OPTIONS`: browsers send it, unpaid, before every cross-origin paid request.
 */
export function patternMatches(pattern: RoutePattern, method: string, segments: readonly string[]): boolean {
  if (pattern.method === undefined) {
    if (method === "OPTIONS") return false;
  } else if (pattern.method !== method && !(pattern.method === "GET" && method === "HEAD")) {
    return false;
  }
  const expected = pattern.segments;
  if (pattern.wildcard ? segments.length < expected.length : segments.length !== expected.length)
    return false;
  for (let i = 0; i < expected.length; i++) {
    const literal = expected[i];
    if (literal !== null && literal !== segments[i]) return false;
  }
  return true;
}
