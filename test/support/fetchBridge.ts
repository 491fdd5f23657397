import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener, type Http2Bindings, type HttpBindings } from "@hono/node-server";
import Fastify from "fastify";
import { Hono } from "hono";
import { x402Fastify, type X402FastifyOptions } from "../../src/adapters/fastify.js";
import { x402Fetch, type X402FetchHandler, type X402FetchOptions } from "../../src/adapters/fetch.js";
import { x402Hono, type X402HonoMiddleware, type X402HonoOptions } from "../../src/adapters/hono.js";
import type { FetchConnection } from "../../src/adapters/fetchRequestFacts.js";

/** Hop-by-hop headers: a forwarding step neither sends nor passes them on. */
const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "content-length"];

/**
 * A Node request listener served on loopback when first asked (its server unref'd: it lives as long as the
 * test file), so that the suites' Node-style handlers can be the app behind a Fetch or Hono paywall.
 */
export function lazyUpstream(listener: RequestListener): () => Promise<string> {
  let started: Promise<string> | undefined;
  return () =>
    (started ??= new Promise<string>((resolve) => {
      // Room for the large payment headers the suites send (ML-DSA), passed on with the request.
      const server: Server = createServer({ maxHeaderSize: 256 * 1024 }, listener);
      server.listen(0, "127.0.0.1", () => {
        server.unref();
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      });
    }));
}

/** `next` for a Fetch paywall: the request it hands on, sent over real HTTP to `upstream`, and its answer. */
export function forwardTo(upstream: () => Promise<string>): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    for (const name of HOP_BY_HOP) headers.delete(name);
    const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
    const answer = await fetch(`${await upstream()}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      redirect: "manual",
      ...(hasBody ? { body: request.body, duplex: "half" } : {}),
    } as RequestInit);
    const answered = new Headers(answer.headers);
    for (const name of HOP_BY_HOP) answered.delete(name);
    return new Response(request.method === "HEAD" ? null : answer.body, {
      status: answer.status,
      headers: answered,
    });
  };
}

/** The connection each request served by {@link fetchListener} came in on. */
const connections = new WeakMap<Request, FetchConnection>();

/** `x402Fetch`'s `connection` where {@link fetchListener} serves it: the request's socket and raw target. */
export const socketOf = (request: Request): FetchConnection | undefined => connections.get(request);

/**
 * A Fetch paywall in front of `next`, as a Node listener (`@hono/node-server` turns each request into a
 * `Request`, and tells its socket: given to the paywall through {@link socketOf}).
 */
export function fetchListener(
  paywall: X402FetchHandler,
  next: (request: Request) => Promise<Response>,
): RequestListener {
  return getRequestListener((request, env: HttpBindings | Http2Bindings) => {
    const { socket, url } = env.incoming as IncomingMessage;
    const { remoteAddress, localAddress, localPort } = socket;
    connections.set(request, { remoteAddress, localAddress, localPort, target: url });
    return paywall(request, next);
  }) as unknown as RequestListener;
}

/** A Hono app with the paywall, then `next` for every request, as a Node listener. */
export function honoListener(
  middleware: X402HonoMiddleware,
  next: (request: Request) => Promise<Response>,
): RequestListener {
  const app = new Hono();
  app.use(middleware);
  app.all("*", (c) => next(c.req.raw));
  return getRequestListener(app.fetch) as unknown as RequestListener;
}

const EXTENSION_METHODS = ["PURGE", "PROPFIND", "LOCK", "QUERY", "MKCOL", "TRACE"];

/**
 * A Fastify app with `x402Fastify` registered, then `handler` for every request (given the raw request and
 * response, Fastify told it is hijacked), as a Node listener: Fastify's own routing and reply run in between.
 */
export function fastifyListener(options: X402FastifyOptions, handler: RequestListener): RequestListener {
  let listener: RequestListener | undefined;
  const app = Fastify({
    serverFactory: (handle) => {
      listener = handle;
      return createServer(handle);
    },
  });
  void app.register(x402Fastify, options);
  // The handlers read the body themselves, as behind the other adapters: Fastify leaves the stream unread.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null));
  // Fastify routes only the methods it knows: the suites' extension methods too, as Express and Node pass them.
  for (const method of EXTENSION_METHODS)
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  app.all("*", (request, reply) => {
    reply.hijack();
    handler(request.raw, reply.raw);
  });
  const ready = app.ready();
  return (req, res) => void ready.then(() => listener?.(req, res));
}

/** The adapters the suites reach through a bridge: served by `@hono/node-server`, or Fastify. */
export type BridgedAdapter = "x402Fetch()" | "x402Hono()" | "x402Fastify";

/**
 * `kind` pricing with `options` in front of `handler`, as a Node listener: Fastify runs `handler` on the raw
 * request; the Fetch adapters hand the request on over HTTP to `handler` served on loopback (or to `next`).
 */
export function bridgedListener(
  kind: BridgedAdapter,
  options: object,
  handler: RequestListener,
  next?: (request: Request) => Promise<Response>,
): RequestListener {
  const behind = next ?? forwardTo(lazyUpstream(handler));
  if (kind === "x402Fastify") return fastifyListener(options as X402FastifyOptions, handler);
  if (kind === "x402Hono()") return honoListener(x402Hono(options as X402HonoOptions), behind);
  return fetchListener(x402Fetch({ connection: socketOf, ...(options as X402FetchOptions) }), behind);
}
