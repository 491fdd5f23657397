import type { Middleware } from "./composeMiddleware.js";
import { sendError } from "../paywall/responses/respond.js";
import { GatewayError } from "../protocol/errors.js";
import { connectionTokens, FRAMING_HEADERS } from "./hopByHopHeaders.js";

/**
 * `Connection: content-length` (or `transfer-encoding`, `host`) would make a proxy drop the header that
 * frames or routes the request and forward the body unframed: refused with `400 invalid_header`.
 */
export function refuseFramingInConnection(): Middleware {
  return (req, res, next) => {
    const named = connectionTokens(req.headers).filter((name) => FRAMING_HEADERS.includes(name));
    if (named.length === 0) return next();
    // The body's framing is in doubt: do not read another request from this connection.
    res.setHeader("Connection", "close");
    sendError(
      res,
      new GatewayError(
        "invalid_header",
        `Connection may not name ${named.join(", ")}: it frames the request`,
        {
          details: { header: "connection", names: named },
        },
      ),
    );
  };
}
