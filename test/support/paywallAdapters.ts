import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import express from "express";
import { x402, x402Node, type X402Options } from "../../src/index.js";
import type { SupportReport } from "../../src/paywall/setup/assemblePaymentFlow.js";
import { x402Fetch, type X402FetchOptions } from "../../src/adapters/fetch.js";
import { x402Hono } from "../../src/adapters/hono.js";
import { bridgedListener } from "./fetchBridge.js";
import { x402Fastify } from "../../src/adapters/fastify.js";
import Fastify from "fastify";

/** A handler both adapters can run: Node's request (with `body` parsed from JSON) and response only. */
export type TestHandler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => unknown;

/** One way of putting the paywall in front of handlers: the suites run the same cases under each. */
export interface PaywallAdapter {
  name: "express" | "node:http" | "x402Fetch()" | "x402Hono()" | "x402Fastify";
  /** Build the paywall alone (what start-up checks and `checkSupport` need). */
  paywall(options: X402Options): {
    checkSupport(): Promise<SupportReport>;
    close(): Promise<void>;
    /** Settles once the paywall is set up (Fastify registers plugins at `ready`); rejects as its options do. */
    ready?(): Promise<unknown>;
  };
  /** The paywall, then `handlers` by `"METHOD /path"` (HEAD served by GET; paths case-insensitive), else 404. */
  app(options: X402Options, handlers: Record<string, TestHandler>): RequestListener;
}

/** Answer JSON the way Express's `res.json` does. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

const expressAdapter: PaywallAdapter = {
  name: "express",
  paywall: (options) => x402(options),
  app(options, handlers) {
    const app = express();
    app.use(x402(options));
    app.use(express.json());
    for (const [key, handler] of Object.entries(handlers)) {
      const [method = "", path = ""] = key.split(" ");
      app[method.toLowerCase() as "get" | "post"](path, (req, res) => handler(req, res));
    }
    return app;
  },
};

/** `handlers` by `"METHOD /path"` as one Node listener (HEAD served by GET; paths case-insensitive), else 404. */
function dispatchTo(handlers: Record<string, TestHandler>): RequestListener {
  const routes = new Map(Object.entries(handlers).map(([key, handler]) => [key.toLowerCase(), handler]));
  const dispatch = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
    const path = (req.url ?? "/").split("?")[0]?.replace(/(.)\/$/, "$1") ?? "/";
    const handler = routes.get(`${method} ${path}`.toLowerCase());
    if (handler === undefined) return sendJson(res, 404, { error: "not_found" });
    try {
      if (/json/.test(req.headers["content-type"] ?? "")) {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        req.body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      }
      await handler(req, res);
    } catch {
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end("Internal Server Error");
      }
    }
  };
  return (req, res) => void dispatch(req, res);
}

const nodeAdapter: PaywallAdapter = {
  name: "node:http",
  // The Node options differ only in what a requireTls function receives.
  paywall: (options) => x402Node(options as never),
  app: (options, handlers) => x402Node(options as never).wrap(dispatchTo(handlers)),
};

/**
 * `x402Fetch()` served by `@hono/node-server`, its `next` the handlers on a loopback Node server reached
 * over real HTTP (the request as the flow hands it on).
 */
const fetchAdapter: PaywallAdapter = {
  name: "x402Fetch()",
  paywall: (options) => x402Fetch(options as unknown as X402FetchOptions),
  app: (options, handlers) => bridgedListener("x402Fetch()", options, dispatchTo(handlers)),
};

/** `x402Hono()` in a Hono app served by `@hono/node-server`, the app's one route forwarding to the handlers. */
const honoAdapter: PaywallAdapter = {
  name: "x402Hono()",
  paywall: (options) => x402Hono(options as never),
  app: (options, handlers) => bridgedListener("x402Hono()", options, dispatchTo(handlers)),
};

/** `x402Fastify` registered on a Fastify app whose one route hands the raw request to the handlers. */
const fastifyAdapter: PaywallAdapter = {
  name: "x402Fastify",
  paywall: (options) => {
    const app = Fastify();
    void app.register(x402Fastify, options as never);
    const ready = Promise.resolve(app.ready());
    return {
      checkSupport: async () => {
        await ready;
        return app.x402.checkSupport();
      },
      close: () => app.close(),
      ready: () => ready,
    };
  },
  app: (options, handlers) => bridgedListener("x402Fastify", options, dispatchTo(handlers)),
};

export const PAYWALL_ADAPTERS: readonly PaywallAdapter[] = [
  expressAdapter,
  nodeAdapter,
  fetchAdapter,
  honoAdapter,
  fastifyAdapter,
];
