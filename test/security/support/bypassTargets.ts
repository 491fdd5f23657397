import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import express from "express";
import { x402 } from "../../../src/adapters/express.js";
import { x402Node } from "../../../src/adapters/node.js";
import { createGateway, type RunningGateway } from "../../../src/gateway/createGateway.js";
import { gatewayConfig } from "../../gateway/support/gatewayConfig.js";
import { listenOnLoopback } from "../../support/listenOnLoopback.js";
import { bridgedListener } from "../../support/fetchBridge.js";
import { PAY_TO } from "../../support/payments.js";
import { startLenientUpstream, type LenientUpstream } from "./startLenientUpstream.js";

export interface BypassTarget {
  name: string;
  url: string;
  /** The lenient upstream itself, for the harness's own control requests. */
  upstreamUrl: string;
  /** Hits on priced resources: the lenient upstream's, plus (x402()) the app's own priced handlers. */
  hitCount(): number;
  stop(): Promise<void>;
}

const NAMES = {
  express: "x402()",
  "node:http": "x402Node()",
  fetch: "x402Fetch()",
  hono: "x402Hono()",
  fastify: "x402Fastify",
} as const;

/**
 * x402() in an app with priced handlers, which proxies everything else to a lenient upstream; or
 * x402Node(), x402Fetch() or x402Hono() in front of that upstream alone (its priced paths count as the
 * upstream's hits; the Fetch ones, served by `@hono/node-server`, hand the request on over HTTP).
 */
export async function startX402Target(
  routes: Record<string, string>,
  facilitatorUrl: string,
  adapter: "express" | "node:http" | "fetch" | "hono" | "fastify" = "express",
): Promise<BypassTarget> {
  const upstream: LenientUpstream = await startLenientUpstream(Object.keys(routes));
  let handled = 0;
  const options = {
    facilitator: { url: facilitatorUrl },
    payTo: PAY_TO,
    network: "eip155:84532",
    routes: Object.fromEntries(Object.entries(routes).map(([key, price]) => [key, { price }])),
  };
  const toUpstream = (req: IncomingMessage, res: ServerResponse) => {
    const { port } = new URL(upstream.url);
    const fail = (status: number) => {
      res.statusCode = status;
      res.end();
    };
    let proxied;
    try {
      proxied = httpRequest(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
    } catch {
      return fail(400);
    }
    proxied.on("error", () => fail(502));
    req.pipe(proxied);
  };
  let listener;
  if (adapter === "node:http") {
    listener = x402Node(options).wrap(toUpstream);
  } else if (adapter !== "express") {
    listener = bridgedListener(NAMES[adapter], options, toUpstream);
  } else {
    const app = express();
    app.use(x402(options));
    for (const key of Object.keys(routes)) {
      const [method, path] = key.split(" ") as [string, string];
      app[method.toLowerCase() as "get" | "post"](path, (_req, res) => {
        handled++;
        res.json({ served: key });
      });
    }
    app.use(toUpstream);
    listener = app;
  }
  const server = await listenOnLoopback(listener);
  return {
    name: NAMES[adapter],
    url: server.url,
    upstreamUrl: upstream.url,
    hitCount: () => handled + upstream.hitCount(),
    stop: async () => {
      await server.close();
      await upstream.stop();
    },
  };
}

/** The standalone gateway in front of a lenient upstream. */
export async function startGatewayTarget(
  routes: Record<string, string>,
  facilitatorUrl: string,
): Promise<BypassTarget> {
  const upstream = await startLenientUpstream(Object.keys(routes));
  const config = gatewayConfig({
    upstreamUrl: upstream.url,
    facilitatorUrl,
    routes: Object.fromEntries(Object.entries(routes).map(([key, price]) => [key, { price }])),
  });
  const running: RunningGateway = await createGateway(config).listen();
  return {
    name: "gateway",
    url: running.url,
    upstreamUrl: upstream.url,
    hitCount: () => upstream.hitCount(),
    stop: async () => {
      await running.close();
      await upstream.stop();
    },
  };
}
