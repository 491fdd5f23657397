import type { RouteMatch, RouteTable } from "../../pricing/RouteTable.js";
import { STANDARD_METHODS } from "../../pricing/compileRoutePattern.js";
import { GatewayError } from "../../protocol/errors.js";
import type { RequestFacts } from "./RequestFacts.js";
import { headerOf, originFormOf, splitUrl } from "./requestParts.js";

/** Headers some frameworks and upstreams read as the request's real method. */
export const METHOD_OVERRIDE_HEADERS = ["x-http-method-override", "x-http-method", "x-method-override"];

/** Headers IIS, Symfony and Spring read as the request's real path (`X-Forwarded-Prefix` is put before it). */
export const PATH_OVERRIDE_HEADERS = ["x-original-url", "x-rewrite-url", "x-forwarded-prefix"];

/** Form bodies Rails, Laravel and Symfony read `_method` from. */
const FORM = /^\s*(?:application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;

/** A query that could name `_method` (PHP reads ` method`, `.method` and `[method` as `_method` too). */
const MAYBE_METHOD_PARAM = /method|%/i;

const same = (a: RouteMatch, b: RouteMatch): boolean =>
  a.kind === b.kind && (a.kind !== "priced" || b.kind !== "priced" || a.route === b.route);

/**
 * The error for a request that names, besides its request line, another method or path that would be
 * priced differently — which an app or upstream honouring it would serve unpaid: a method override
 * header, `_method` in the query, an unpriced form POST to a path priced for another method (its body
 * may carry `_method`; it is not read here), or an `X-Original-URL` / `X-Rewrite-URL` /
 * `X-Forwarded-Prefix`. `undefined` when every reading agrees.
 */
export function refuseOverrides(
  routes: RouteTable,
  req: RequestFacts,
  /** The request target's path and query, split once by the flow. */
  { pathname, search }: { pathname: string; search: string },
  match: RouteMatch,
  matchAs: (method: string) => RouteMatch,
  options: { refuseLenientReadings: boolean },
): GatewayError | undefined {
  const own = req.method.toUpperCase();
  // Seven headers are read: the adapter's headers object is fetched once.
  const read = { headers: req.headers };
  const methodError = (source: string, method: string, message: string) =>
    new GatewayError("invalid_method_override", message, { details: { source, method } });
  for (const name of METHOD_OVERRIDE_HEADERS) {
    const value = headerOf(read, name);
    if (value === undefined) continue;
    for (const method of value.split(",").map((part) => part.trim().toUpperCase())) {
      if (method === "" || method === own || same(matchAs(method), match)) continue;
      return new GatewayError(
        "invalid_method_override",
        `${name} names ${method}, which is priced differently from ${req.method}: send the request with its real method`,
        { details: { header: name, method } },
      );
    }
  }
  if (search.length > 1 && MAYBE_METHOD_PARAM.test(search)) {
    for (const [name, value] of new URLSearchParams(search)) {
      const method = value.trim().toUpperCase();
      if (name.replace(/^[ .[]/, "_") !== "_method" || method === "" || method === own) continue;
      if (same(matchAs(method), match)) continue;
      return methodError(
        "query",
        method,
        `the query's _method names ${method}, which is priced differently from ${req.method}: send the request with its real method`,
      );
    }
  }
  const contentType = headerOf(read, "content-type");
  // The body is not read here: a form POST is refused only where `_method` could turn an unpaid request
  // into a priced one (a paid POST served as another priced method was still paid for).
  if (own === "POST" && match.kind === "free" && contentType !== undefined && FORM.test(contentType)) {
    const other = STANDARD_METHODS.find((method) => matchAs(method).kind === "priced");
    if (other !== undefined) {
      return methodError(
        "body",
        other,
        `a form POST to a path priced for ${other} could carry _method=${other} in its body: send the request with its real method, or a JSON body`,
      );
    }
  }
  for (const name of PATH_OVERRIDE_HEADERS) {
    const value = headerOf(read, name);
    if (value === undefined || value === "") continue;
    const target = name === "x-forwarded-prefix" ? `${value}${pathname}` : originFormOf(value);
    const path = target === undefined ? undefined : splitUrl(target).pathname;
    if (path !== undefined && same(routes.match(own, path, options), match)) continue;
    return new GatewayError(
      "invalid_path",
      `${name} names a path priced differently from the request's (some servers route on it): send the request to that path`,
      { details: { reason: "path_override_header", header: name } },
    );
  }
  return undefined;
}
