import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Request, RequestHandler } from "express";
import { createProxyMiddleware, type Plugin } from "http-proxy-middleware";
import type { Logger } from "pino";
import type { UpstreamSettings } from "../config/gatewayConfigSchema.js";
import { METHOD_OVERRIDE_HEADERS } from "../middleware/Paywall.js";
import { sendError } from "../middleware/respond.js";
import { GatewayError } from "../protocol/errors.js";
import {
  PAYMENT_REQUIRED,
  PAYMENT_RESPONSE,
  PAYMENT_SIGNATURE,
  SIGN_IN_WITH_X,
} from "../protocol/headers.js";
import { connectionTokens, hopByHopHeaders } from "./hopByHopHeaders.js";
import { isUpstreamRequestAbandoned, trackUpstreamRequest } from "./upstreamRequests.js";

/** Never forwarded upstream: the payment is the gateway's business. */
const PAYMENT_REQUEST_HEADERS = [PAYMENT_SIGNATURE, SIGN_IN_WITH_X];
/** Never taken from an upstream: only the gateway issues offers and receipts. */
const PAYMENT_RESPONSE_HEADERS = [PAYMENT_REQUIRED, PAYMENT_RESPONSE];

const CONNECT_TIMEOUT = "UPSTREAM_CONNECT_TIMEOUT";
const READ_TIMEOUT = "UPSTREAM_READ_TIMEOUT";

export interface UpstreamProxyOptions {
  upstream: UpstreamSettings;
  logger: Logger;
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
 * Express believes (trusted proxies only), connect and read timeouts, errors as the flat error body.
 */
export function createUpstreamProxy({ upstream, logger, onError }: UpstreamProxyOptions): RequestHandler {
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
      const socket = proxyReq.socket as Socket | null;
      if (socket?.connecting) {
        const timer = setTimeout(
          () => proxyReq.destroy(timeoutError(CONNECT_TIMEOUT, "upstream connect timeout")),
          upstream.connectTimeoutMs,
        );
        const clear = () => clearTimeout(timer);
        socket.once("connect", clear);
        socket.once("close", clear);
      }
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

  const proxy = createProxyMiddleware({
    target: upstream.url,
    changeOrigin: true,
    ejectPlugins: true,
    plugins: [plugin],
  });

  return (req, res, next) => {
    const path = req.url.split("?")[0] ?? "/";
    if (!isUnderPrefix(path, upstream.prefix)) return next();
    if (connectionTokens(req.headers).includes("close")) closeWanted.add(req);
    prepareForwardedHeaders(req);
    return void proxy(req, res, next);
  };
}

/** Replace the request's headers with what the upstream may see (setupOutgoing copies `req.headers`). */
function prepareForwardedHeaders(req: Request): void {
  const peer = req.socket.remoteAddress ?? "";
  const trusted = (req.app.get("trust proxy fn") as (address: string, hop: number) => boolean)(peer, 0);
  const priorFor = trusted ? req.headers["x-forwarded-for"] : undefined;
  const forwardedFor = [priorFor, peer].filter((part) => part !== undefined && part !== "").join(", ");
  const proto = req.protocol;
  const host = req.host;
  const headers = { ...req.headers };
  // `Expect` was answered here already (Node sends 100 Continue), so it is not the upstream's to answer.
  // Method overrides: the upstream must run the method that was priced, not one a header names.
  for (const name of [
    ...hopByHopHeaders(req.headers),
    ...PAYMENT_REQUEST_HEADERS,
    ...METHOD_OVERRIDE_HEADERS,
    "expect",
  ])
    delete headers[name];
  headers["x-forwarded-for"] = forwardedFor;
  headers["x-forwarded-proto"] = proto;
  if (host) headers["x-forwarded-host"] = host;
  else delete headers["x-forwarded-host"];
  req.headers = headers;
}
