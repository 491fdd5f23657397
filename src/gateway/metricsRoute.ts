import type { GatewayMetrics } from "./createGatewayMetrics.js";
import type { LocalRoute } from "./serveLocalRoutes.js";

/** `GET <path>`: the gateway's Prometheus metrics, in the registry's text format. */
export function metricsRoute(path: string, metrics: GatewayMetrics): LocalRoute {
  return {
    path,
    answer: async (_req, res) => {
      const text = await metrics.registry.metrics();
      res.setHeader("Content-Type", metrics.registry.contentType);
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Content-Length", Buffer.byteLength(text));
      res.end(text);
    },
  };
}
