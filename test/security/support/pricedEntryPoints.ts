import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import { stringify } from "yaml";
import { x402 } from "../../../src/adapters/express.js";
import { x402Node } from "../../../src/adapters/node.js";
import { parseConfig } from "../../../src/config/loadConfig.js";
import { createGateway } from "../../../src/gateway/createGateway.js";
import { listenOnLoopback } from "../../support/listenOnLoopback.js";
import { bridgedListener } from "../../support/fetchBridge.js";

export interface PricedEntryPoint {
  name: (typeof ENTRY_POINTS)[number];
  url: string;
  /** Requests that reached the handler (or upstream) behind the paywall. */
  hits(): number;
  stop(): Promise<void>;
}

export const ENTRY_POINTS = [
  "x402()",
  "x402Node()",
  "gateway",
  "x402Fetch()",
  "x402Hono()",
  "x402Fastify",
] as const;

/**
 * One paywall entry point pricing `routes` (a table, or one official route config), with a handler behind
 * it that serves anything with 200 and counts what it served: `x402()` in an Express app, `x402Node()`
 * around a `node:http` handler, the gateway loaded from YAML in front of an upstream, or `x402Fetch()` /
 * `x402Hono()` served by `@hono/node-server`, handing on over HTTP to the handler on loopback.
 */
export async function startPricedEntryPoint(
  name: PricedEntryPoint["name"],
  routes: unknown,
  settings: { facilitatorUrl: string; payTo: string; caseSensitivePaths?: boolean },
): Promise<PricedEntryPoint> {
  let hits = 0;
  const serve = (_req: IncomingMessage, res: ServerResponse) => {
    hits++;
    res.statusCode = 200;
    res.end("served");
  };
  const options = {
    facilitator: { url: settings.facilitatorUrl },
    payTo: settings.payTo,
    network: "eip155:84532",
    routes: routes as Record<string, never>,
    caseSensitivePaths: settings.caseSensitivePaths ?? false,
  };
  if (name === "gateway") {
    const upstream = await listenOnLoopback(serve);
    const yaml = stringify({
      listen: { host: "127.0.0.1", port: 0 },
      facilitator: { url: settings.facilitatorUrl },
      payTo: settings.payTo,
      network: "eip155:84532",
      upstreams: [{ url: upstream.url }],
      caseSensitivePaths: options.caseSensitivePaths,
      routes,
      logging: { level: "silent" },
    });
    const running = await createGateway(parseConfig(yaml, { file: "routes.yaml", env: {} })).listen();
    return {
      name,
      url: running.url,
      hits: () => hits,
      stop: async () => {
        await running.close();
        await upstream.close();
      },
    };
  }
  let listener;
  if (name === "x402Node()") listener = x402Node(options).wrap(serve);
  else if (name !== "x402()") listener = bridgedListener(name, options, serve);
  else {
    const app = express();
    app.use(x402(options));
    app.use(serve);
    listener = app;
  }
  const server = await listenOnLoopback(listener);
  return { name, url: server.url, hits: () => hits, stop: () => server.close() };
}
