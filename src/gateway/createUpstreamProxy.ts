import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { Socket } from "node:net";
import { parse as parseLegacyUrl } from "node:url";
import { createProxyMiddleware, type Options, type Plugin } from "http-proxy-middleware";
import type { Logger } from "pino";
import type { UpstreamSettings } from "../config/gatewaySectionSchemas.js";
import { METHOD_OVERRIDE_HEADERS, PATH_OVERRIDE_HEADERS } from "../paywall/request/refuseOverrides.js";
import { sendError } from "../paywall/responses/respond.js";
import { GatewayError } from "../protocol/errors.js";
import {
  PAYMENT_REQUIRED,
  PAYMENT_RESPONSE,
  PAYMENT_SIGNATURE,
  SIGN_IN_WITH_X,
} from "../protocol/headers.js";
import type { Middleware } from "./composeMiddleware.js";
import { connectionTokens, hopByHopHeaders } from "./hopByHopHeaders.js";
import type { ProxyTrust } from "./ProxyTrust.js";
import { isUpstreamRequestAbandoned, trackUpstreamRequest } from "./upstreamRequests.js";

type ProxyTarget = NonNullable<Options["target"]>;

/** Never forwarded upstream: the payment is the gateway's business. */
const PAYMENT_REQUEST_HEADERS = [PAYMENT_SIGNATURE, SIGN_IN_WITH_X];
/** Never taken from an upstream: only the gateway issues offers and receipts. */
const PAYMENT_RESPONSE_HEADERS = [PAYMENT_REQUIRED, PAYMENT_RESPONSE];

/** Headers that name the client's address, besides `X-Forwarded-*`: dropped unless a trusted proxy sent them. */
const CLIENT_IP_HEADERS = [
  "forwarded",
  "x-real-ip",
  "true-client-ip",
  "x-client-ip",
  "cf-connecting-ip",
  "fastly-client-ip",
  "x-cluster-client-ip",
  "x-original-forwarded-for",
];

const CONNECT_TIMEOUT = "UPSTREAM_CONNECT_TIMEOUT";
/** Idle upstream connections are dropped before Node's default server `keepAliveTimeout` (5 s) can race a reuse. */
const IDLE_SOCKET_MS = 4_000;
const READ_TIMEOUT = "UPSTREAM_READ_TIMEOUT";

export interface UpstreamProxyOptions {
  upstream: UpstreamSettings;
  logger: Logger;
  /** Whose `X-Forwarded-*` are believed, and so extended rather than replaced. */
  trust: ProxyTrust;
  /**
   * The gateway's `publicUrl`: when set, the `X-Forwarded-Host` and `X-Forwarded-Proto` the upstream gets
   * are its host and scheme, whatever `Host` the client sent (so a backend building links from them
   * names the gateway, and no client header can point them elsewhere).
   */
  publicUrl?: string | undefined;
  onError?: (code: string) => void;
}

function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Paths under `prefix`, segment-wise: `/api` takes `/api` and `/api/x`, not `/apix`. */
export function isUnderPrefix(path: string, prefix: string): boolean {
  if (prefix === "/" || path === prefix) return true;
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  return path.startsWith(base);
}

/**
 * Forward requests under one upstream's prefix with http-proxy-middleware: the path as given (already
 * normalised), the body streamed, payment and hop-by-hop headers dropped, `X-Forwarded-*` set from what
 * the gateway believes (trusted proxies only), connect and read timeouts, errors as the flat error body.
 */
export function createUpstreamProxy({
  upstream,
  logger,
  trust,
  publicUrl,
  onError,
}: UpstreamProxyOptions): Middleware {
  const answered = new WeakSet<IncomingMessage>();
  const closeWanted = new WeakSet<IncomingMessage>();

  const fail = (req: IncomingMessage, res: ServerResponse, err: NodeJS.ErrnoException): void => {
    if (isUpstreamRequestAbandoned(req)) return;
    const timedOut = err.code === CONNECT_TIMEOUT || err.code === READ_TIMEOUT || err.code === "ETIMEDOUT";
    const code = timedOut ? "upstream_timeout" : "upstream_unavailable";
    onError?.(answered.has(req) ? "aborted" : code);
    logger.warn(
      { upstream: upstream.prefix, err: { code: err.code, message: err.message } },
      "upstream failed",
    );
    // Once the upstream's answer has begun, the only honest thing left is to cut the connection;
    // a held (paid) response that never ended is never settled.
    if (answered.has(req) || res.headersSent) return void res.destroy();
    const message = timedOut
      ? `the upstream did not answer in time (${err.code === CONNECT_TIMEOUT ? `connect, ${upstream.connectTimeoutMs}` : upstream.timeoutMs} ms)`
      : "the upstream could not be reached or closed the connection";
    sendError(res, new GatewayError(code, message, { details: { reason: err.code ?? "unknown" } }));
  };

  const plugin: Plugin = (proxyServer) => {
    proxyServer.on("proxyReq", (proxyReq: ClientRequest, req: IncomingMessage) => {
      trackUpstreamRequest(req, proxyReq);
      // With a keep-alive agent the socket comes later, and is often a reused, connected one.
      proxyReq.once("socket", (socket: Socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(
          () => proxyReq.destroy(timeoutError(CONNECT_TIMEOUT, "upstream connect timeout")),
          upstream.connectTimeoutMs,
        );
        const clear = () => clearTimeout(timer);
        socket.once("connect", clear);
        socket.once("close", clear);
      });
      proxyReq.setTimeout(upstream.timeoutMs, () =>
        proxyReq.destroy(timeoutError(READ_TIMEOUT, "upstream read timeout")),
      );
    });
    proxyServer.on("proxyRes", (proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) => {
      answered.add(req);
      for (const name of [
        ...hopByHopHeaders(proxyRes.headers),
        "transfer-encoding",
        ...PAYMENT_RESPONSE_HEADERS,
      ]) {
        delete proxyRes.headers[name];
      }
      // The client's connection, not the upstream's: close it when the client (or draining) asked.
      const closing = closeWanted.has(req) || /close/i.test(String(res.getHeader("connection") ?? ""));
      proxyRes.headers.connection = closing ? "close" : "keep-alive";
      proxyRes.once("close", () => {
        if (!proxyRes.complete && !res.writableEnded) {
          onError?.("aborted");
          res.destroy();
        }
      });
    });
    proxyServer.on("error", (err: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
      if ("writeHead" in res) fail(req, res, err as NodeJS.ErrnoException);
      else res.destroy();
    });
  };

  // One keep-alive pool per upstream: without an agent http-proxy opens a connection per request.
  const agentOptions = {
    keepAlive: true,
    maxSockets: upstream.maxSockets,
    maxFreeSockets: upstream.maxFreeSockets,
  };
  const agent = upstream.url.startsWith("https:")
    ? new HttpsAgent(agentOptions)
    : new HttpAgent(agentOptions);
  // The agent destroys a free socket on timeout; an active request sets its own (timeoutMs).
  agent.on("free", (socket: Socket) => {
    if (socket.timeout === undefined || socket.timeout === 0 || socket.timeout > IDLE_SOCKET_MS)
      socket.setTimeout(IDLE_SOCKET_MS);
  });
  const origin = publicUrl === undefined ? undefined : new URL(publicUrl);
  const publicOrigin = origin && { host: origin.host, proto: origin.protocol.slice(0, -1) };
  const proxy = createProxyMiddleware({
    // Parsed once: given as a string, http-proxy would parse it again for every request.
    target: parseLegacyUrl(upstream.url) as ProxyTarget,
    agent,
    changeOrigin: true,
    ejectPlugins: true,
    plugins: [plugin],
  });

  return (req, res, next) => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    if (!isUnderPrefix(query === -1 ? url : url.slice(0, query), upstream.prefix)) return next();
    if (connectionTokens(req.headers).includes("close")) closeWanted.add(req);
    prepareForwardedHeaders(req, trust, publicOrigin);
    return void proxy(req, res, next);
  };
}

/** Replace the request's headers with what the upstream may see (setupOutgoing copies `req.headers`). */
function prepareForwardedHeaders(
  req: IncomingMessage,
  trust: ProxyTrust,
  publicOrigin: { host: string; proto: string } | undefined,
): void {
  const peer = req.socket.remoteAddress ?? "";
  const trusted = trust.trusts(peer);
  const priorFor = trusted ? req.headers["x-forwarded-for"] : undefined;
  const forwardedFor = [priorFor, peer].filter((part) => part !== undefined && part !== "").join(", ");
  const proto = publicOrigin?.proto ?? trust.protocol(req);
  const host = publicOrigin?.host ?? trust.host(req);
  const headers = { ...req.headers };
  // `Expect` was answered here already (100 Continue once the paywall let the request on), so it is not the upstream's to answer.
  // Method overrides: the upstream must run the method that was priced, not one a header names.
  for (const name of [
    ...hopByHopHeaders(req.headers),
    ...PAYMENT_REQUEST_HEADERS,
    ...METHOD_OVERRIDE_HEADERS,
    "expect",
  ])
    delete headers[name];
  // Other client-IP headers, and the path rewrites IIS/Symfony/Spring honour, are believed by some
  // upstreams: from an untrusted client they are lies.
  if (!trusted) for (const name of [...CLIENT_IP_HEADERS, ...PATH_OVERRIDE_HEADERS]) delete headers[name];
  headers["x-real-ip"] =
    trusted && typeof req.headers["x-real-ip"] === "string"
      ? req.headers["x-real-ip"]
      : trust.clientAddress(req);
  headers["x-forwarded-for"] = forwardedFor;
  headers["x-forwarded-proto"] = proto;
  if (host) headers["x-forwarded-host"] = host;
  else delete headers["x-forwarded-host"];
  req.headers = headers;
}
