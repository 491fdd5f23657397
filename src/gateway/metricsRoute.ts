import type { LocalRoute } from "./serveLocalRoutes.js";

/** `GET <path>`: the gateway's Prometheus metrics as `text()` gives them (the registry's text format). */
export function metricsRoute(path: string, contentType: string, text: () => Promise<string>): LocalRoute {
  return {
    path,
    answer: async (_req, res) => {
      const body = await text();
      res.setHeader("Content-Type", contentType);
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Content-Length", Buffer.byteLength(body));
      res.end(body);
    },
  };
}
