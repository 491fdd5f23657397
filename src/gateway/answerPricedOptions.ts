import { allowedMethods } from "../paywall/request/allowedMethods.js";
import { answerPreflight } from "../paywall/request/answerPreflight.js";
import { splitUrl } from "../paywall/request/requestParts.js";
import type { RouteTable } from "../pricing/RouteTable.js";
import type { Middleware } from "./composeMiddleware.js";

/**
 * An `OPTIONS` (a CORS preflight from an origin not allowed, or a plain one) on a path some route prices,
 * and that no route prices for `OPTIONS` itself, is answered here — `204` with `Allow` — never forwarded:
 * an upstream that ignores the method would serve the priced resource for free. Runs after the paywall,
 * on the path it normalised; allowed origins' preflights were answered earlier by the CORS step.
 */
export function answerPricedOptions(routes: RouteTable): Middleware {
  return (req, res, next) => {
    if (req.method !== "OPTIONS") return next();
    const { pathname } = splitUrl(req.url ?? "/");
    const allow = allowedMethods(routes, (method) => routes.matchNormalized(method, pathname));
    if (allow === undefined) return next();
    answerPreflight(res, allow);
  };
}
