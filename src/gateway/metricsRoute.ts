import { sendError } from "../paywall/responses/respond.js";
import { GatewayError } from "../protocol/errors.js";
import { bearerTokenCheck } from "../common/bearerTokenCheck.js";
import { headerOf } from "../paywall/request/requestParts.js";
import type { LocalRoute } from "./serveLocalRoutes.js";

/**
 * `GET <path>`: the gateway's Prometheus metrics as `text()` gives them (the registry's text format).
 * With `token`, only to `Authorization: Bearer <token>`; anyone else gets `401 admin_unauthorized`.
 */
export function metricsRoute(
  path: string,
  contentType: string,
  text: () => Promise<string>,
  token?: string,
): LocalRoute {
  const authorized = token === undefined ? () => true : bearerTokenCheck(token);
  return {
    path,
    answer: async (req, res) => {
      if (!authorized(headerOf(req, "authorization"))) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="x402-gateway metrics"');
        const message = `${path} here needs Authorization: Bearer <admin.token>`;
        return sendError(res, new GatewayError("admin_unauthorized", message));
      }
      const body = await text();
      res.setHeader("Content-Type", contentType);
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Content-Length", Buffer.byteLength(body));
      res.end(body);
    },
  };
}
