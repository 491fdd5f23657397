import type { Middleware } from "./composeMiddleware.js";
import { splitUrl } from "../paywall/request/requestParts.js";
import { markNormalized } from "../paywall/request/normalizedRequests.js";
import { sendError } from "../paywall/responses/respond.js";
import { normalizePath } from "../pricing/normalizePath.js";
import { invalidPath } from "../paywall/request/invalidPath.js";
import { answerPreflight } from "../paywall/request/answerPreflight.js";
import { STANDARD_METHODS } from "../pricing/compileRoutePattern.js";

/**
 * Rewrite `req.url` to the one normalised path the paywall prices, for every request, so a free route is
 * forwarded exactly as the price table read it; a path without a single reading is refused, and so is a
 * target that is not a path, but for `OPTIONS *`.
 */
export function normalizeRequestPath(): Middleware {
  return (req, res, next) => {
    // `OPTIONS *` asks about the server, not a resource: answered here, never forwarded.
    if (req.method === "OPTIONS" && req.url === "*") return answerPreflight(res, STANDARD_METHODS);
    const { pathname, search } = splitUrl(req.url ?? "/");
    const normalized = normalizePath(pathname);
    if (!normalized.ok) {
      return sendError(res, invalidPath(normalized.reason));
    }
    req.url = normalized.path + search;
    markNormalized(req as { url: string }, pathname);
    next();
  };
}
