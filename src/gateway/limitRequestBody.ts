import type { Middleware } from "./composeMiddleware.js";
import { sendError } from "../paywall/responses/respond.js";
import { bodyTooLarge } from "../paywall/request/bodyTooLarge.js";
import { abandonUpstreamRequest } from "./upstreamRequests.js";

/**
 * Cap request bodies without buffering them: a `Content-Length` over the cap is refused before anything
 * is verified or forwarded; a chunked body is counted as it streams to the upstream, and the upstream
 * request is cut the moment it passes the cap (the client gets 413; a held payment is not settled).
 */
export function limitRequestBody(maxBytes: number): Middleware {
  return (req, res, next) => {
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > maxBytes) {
      res.setHeader("Connection", "close");
      return sendError(res, bodyTooLarge(maxBytes));
    }
    if (declared === undefined && req.headers["transfer-encoding"] === undefined) return next();
    let seen = 0;
    // Paused so that counting does not start the flow: bytes move only once the proxy pipes the body.
    req.pause();
    const count = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen <= maxBytes) return;
      req.off("data", count);
      req.unpipe();
      abandonUpstreamRequest(req);
      if (!res.headersSent && !res.writableEnded) {
        res.setHeader("Connection", "close");
        sendError(res, bodyTooLarge(maxBytes));
      }
    };
    req.on("data", count);
    next();
  };
}
