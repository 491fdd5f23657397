import type { ServerResponse } from "node:http";
import type { Middleware } from "./composeMiddleware.js";
import { hasBody } from "../paywall/request/hasBody.js";
import { sendError } from "../paywall/responses/respond.js";
import { GatewayError } from "../protocol/errors.js";

/**
 * Methods forwarded without a body: Node's client sends a body on them with no framing at all unless
 * the request names one, so a body there is the shape of request smuggling.
 */
export const BODILESS_METHODS = new Set(["GET", "HEAD", "DELETE", "OPTIONS", "TRACE"]);

/**
 * Every body the gateway forwards is framed by exactly one of `Content-Length` or `chunked`: a body on
 * a GET/HEAD/DELETE/OPTIONS/TRACE is `400 body_not_allowed`, and a `Transfer-Encoding` other than
 * `chunked` alone (which Node's parser lets through, e.g. `gzip, chunked`) is `400 invalid_header`;
 * both before the paywall, so nothing is verified, reserved or settled. (Node's parser already
 * refuses `Content-Length` with `Transfer-Encoding`, repeated or non-numeric lengths, and `chunked`
 * not last.) The connection is closed: the unread body must not be read as the next request.
 */
export function refuseUnframedBodies(): Middleware {
  return (req, res, next) => {
    const encoding = req.headers["transfer-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "chunked") {
      return refuse(
        res,
        new GatewayError(
          "invalid_header",
          `Transfer-Encoding may only be chunked (got ${JSON.stringify(encoding)})`,
          { details: { header: "transfer-encoding" } },
        ),
      );
    }
    const method = req.method ?? "GET";
    if (!BODILESS_METHODS.has(method) || !hasBody(req.headers)) return next();
    refuse(
      res,
      new GatewayError(
        "body_not_allowed",
        `a ${method} request may not carry a body (Content-Length above 0 or Transfer-Encoding): send it without one`,
        { details: { method } },
      ),
    );
  };
}

function refuse(res: ServerResponse, error: GatewayError): void {
  res.setHeader("Connection", "close");
  sendError(res, error);
}
