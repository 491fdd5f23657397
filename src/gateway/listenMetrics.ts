import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sendError } from "../paywall/responses/respond.js";
import { GatewayError } from "../protocol/errors.js";
import { metricsRoute } from "./metricsRoute.js";
import { routedPath, serveLocalRoutes } from "./serveLocalRoutes.js";
import { shownHost } from "./shownHost.js";

export interface MetricsListenerOptions {
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** The one path served (`metrics.path`); anything else is `404 not_found`. */
  path: string;
  contentType: string;
  text: () => Promise<string>;
}

export interface MetricsListener {
  /** `http://host:port/path` (a wildcard host shown as loopback). */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The metrics on a plain HTTP listener of their own, apart from the gateway's: by default on loopback,
 * where only this machine's Prometheus agent reads them (they show revenue and process details).
 */
export async function listenMetrics(options: MetricsListenerOptions): Promise<MetricsListener> {
  const serve = serveLocalRoutes([metricsRoute(options.path, options.contentType, options.text)]);
  const server = createServer((req, res) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    void Promise.resolve(
      serve(req, res, () =>
        sendError(
          res,
          new GatewayError("not_found", `only ${options.path} is served here, not ${routedPath(req.url)}`),
        ),
      ),
    ).catch(() => {
      if (res.headersSent) return void res.destroy();
      sendError(res, new GatewayError("internal_error", "the metrics could not be read"));
    });
  });
  // Scrapes are short: an idle or slow client does not keep a connection.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${shownHost(address)}:${address.port}${options.path}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
