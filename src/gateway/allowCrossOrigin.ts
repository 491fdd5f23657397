import type { CorsSettings } from "../config/gatewaySectionSchemas.js";
import { addVary } from "../paywall/responses/respond.js";
import type { Middleware } from "./composeMiddleware.js";

/** Request headers a paying browser client sends. */
const ALLOWED_HEADERS = "Content-Type, Authorization, PAYMENT-SIGNATURE, SIGN-IN-WITH-X";
/** Response headers it must be able to read: the offer, the receipt, when to retry. */
const EXPOSED_HEADERS = "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X402-Error, X402-Revelation-Mask, Retry-After";

/**
 * CORS for browser apps that pay through the gateway: answers preflights itself (never priced, never
 * forwarded) and lets allowed origins read the payment headers. Does nothing when no origin is allowed.
 */
export function allowCrossOrigin(settings: CorsSettings): Middleware {
  const anyOrigin = settings.allowedOrigins.includes("*");
  const origins = new Set(settings.allowedOrigins.map((origin) => origin.toLowerCase()));
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (settings.allowedOrigins.length === 0 || origin === undefined) return next();
    addVary(res, "Origin");
    if (!anyOrigin && !origins.has(origin.toLowerCase())) return next();
    res.setHeader("Access-Control-Allow-Origin", anyOrigin ? "*" : origin);
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
      res.setHeader("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE");
      res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      res.setHeader("Access-Control-Max-Age", String(settings.maxAgeSeconds));
      res.statusCode = 204;
      res.end();
      return;
    }
    next();
  };
}
