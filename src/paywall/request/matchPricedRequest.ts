import type { PricedRoute, RouteTable } from "../../pricing/RouteTable.js";
import { STANDARD_METHODS } from "../../pricing/compileRoutePattern.js";
import { GatewayError } from "../../protocol/errors.js";
import { allowedMethods } from "./allowedMethods.js";
import { invalidPath } from "./invalidPath.js";
import { matchWithCborRetry } from "../wires/cborRouting.js";
import { isNormalized, rawPathOf } from "./normalizedRequests.js";
import { refuseOverrides } from "./refuseOverrides.js";
import type { RequestFacts } from "./RequestFacts.js";

export { METHOD_OVERRIDE_HEADERS } from "./refuseOverrides.js";

export type PricedRequestMatch =
  | { kind: "free" }
  | { kind: "priced"; route: PricedRoute; path: string }
  | { kind: "invalid"; error: GatewayError };

/**
 * Price a request by its path, refusing what another reading could price differently: an ambiguous or
 * lenient spelling of the path (`400 invalid_path`), a method or path override (see
 * {@link refuseOverrides}) that some apps and upstreams honour, or an extension
 * method no route names on a path some route prices (`405 method_not_allowed` with `Allow`: servers
 * that ignore the method would serve the priced resource).
 */
export function matchPricedRequest(
  routes: RouteTable,
  req: RequestFacts,
  target: { pathname: string; search: string },
  options: { refuseLenientReadings: boolean },
): PricedRequestMatch {
  const { pathname } = target;
  // The gateway has normalised the path already: match it as it is, without a second pass.
  const normalized = isNormalized(req.raw);
  const rawPath = normalized ? rawPathOf(req.raw) : undefined;
  const matchAs = (method: string) =>
    normalized
      ? routes.matchNormalized(method, pathname, { ...options, rawPath })
      : routes.match(method, pathname, options);
  const match = matchWithCborRetry(matchAs, req);
  if (match.kind === "invalid") return { kind: "invalid", error: invalidPath(match.reason) };
  const override = refuseOverrides(routes, req, target, match, matchAs, options);
  if (override !== undefined) return { kind: "invalid", error: override };
  if (match.kind === "free" && !STANDARD_METHODS.includes(req.method.toUpperCase())) {
    const allow = allowedMethods(routes, matchAs);
    if (allow !== undefined) {
      const error = new GatewayError(
        "method_not_allowed",
        `${req.method} is not allowed on a priced path (no route names it): use one of ${allow.join(", ")}`,
        { details: { method: req.method }, headers: { Allow: allow.join(", ") } },
      );
      return { kind: "invalid", error };
    }
  }
  return match;
}
