import type { PricedRoute, RouteTable } from "../pricing/RouteTable.js";
import { GatewayError } from "../protocol/errors.js";
import { matchWithCborRetry } from "./cborRouting.js";
import { isNormalized } from "./normalizedRequests.js";
import { headerOf } from "./requestParts.js";
import type { RequestFacts } from "./flow/RequestFacts.js";

/** Headers some frameworks and upstreams read as the request's real method. */
export const METHOD_OVERRIDE_HEADERS = ["x-http-method-override", "x-http-method", "x-method-override"];

export type PricedRequestMatch =
  | { kind: "free" }
  | { kind: "priced"; route: PricedRoute; path: string }
  | { kind: "invalid"; error: GatewayError };

/**
 * Price a request by its path, refusing what another reading could price differently: an ambiguous or
 * lenient spelling of the path (`400 invalid_path`), or a method override header (honoured by some apps
 * and upstreams) naming a method priced otherwise (`400 invalid_method_override`).
 */
export function matchPricedRequest(
  routes: RouteTable,
  req: RequestFacts,
  pathname: string,
  options: { refuseLenientReadings: boolean },
): PricedRequestMatch {
  // The gateway has normalised the path already: match it as it is, without a second pass.
  const normalized = isNormalized(req.raw);
  const matchAs = (method: string) =>
    normalized ? routes.matchNormalized(method, pathname, options) : routes.match(method, pathname, options);
  const match = matchWithCborRetry(matchAs, req);
  if (match.kind === "invalid") {
    const error = new GatewayError(
      "invalid_path",
      "the path has an ambiguous encoding (encoded / or \\, or a spelling a lenient server reads as another priced route)",
      { details: { reason: match.reason } },
    );
    return { kind: "invalid", error };
  }
  for (const name of METHOD_OVERRIDE_HEADERS) {
    const value = headerOf(req, name);
    if (value === undefined) continue;
    for (const method of value.split(",").map((part) => part.trim().toUpperCase())) {
      if (method === "" || method === req.method.toUpperCase()) continue;
      const other = matchAs(method);
      const same =
        other.kind === match.kind &&
        (other.kind !== "priced" || match.kind !== "priced" || other.route === match.route);
      if (!same) {
        const error = new GatewayError(
          "invalid_method_override",
          `${name} names ${method}, which is priced differently from ${req.method}: send the request with its real method`,
          { details: { header: name, method } },
        );
        return { kind: "invalid", error };
      }
    }
  }
  return match;
}
