import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import helmet from "helmet";
import type { Logger } from "pino";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { isLoopbackHost } from "../config/isLoopbackHost.js";
import type { X402Options } from "../middleware/options.js";
import { sendError } from "../middleware/respond.js";
import { x402 } from "../middleware/x402.js";
import { GatewayError } from "../protocol/errors.js";
import { allowCrossOrigin } from "./allowCrossOrigin.js";
import { checkReadiness } from "./checkReadiness.js";
import { createAccessLog } from "./createAccessLog.js";
import { createGatewayLogger } from "./createGatewayLogger.js";
import { createGatewayMetrics, type GatewayMetrics } from "./createGatewayMetrics.js";
import { createUpstreamProxy } from "./createUpstreamProxy.js";
import { limitRequestBody } from "./limitRequestBody.js";
import { normalizeRequestPath } from "./normalizeRequestPath.js";
import { refuseFramingInConnection } from "./refuseFramingInConnection.js";

/** What the gateway needs from the paywall: a middleware, and optionally what `x402()` adds. */
export type GatewayPaywall = RequestHandler & {
  /** Ask the facilitator's `/supported` and log unsupported routes. */
  checkSupport?: () => Promise<unknown>;
  /** Release what the paywall opened (a Redis ledger's connection). */
  close?: () => Promise<void>;
};

export interface GatewayDeps {
  /** Builds the paywall from the config's settings; `x402` by default. */
  paywall?: (options: X402Options) => GatewayPaywall;
  /** pino logger; by default one at `logging.level` on stdout. */
  logger?: Logger;
  /** `fetch` for the facilitator and the readiness probes. */
  fetch?: typeof fetch;
  /** Extra `x402()` options only code can give (a facilitator or ledger instance, `onPaid`, a clock…). */
  paywallOverrides?: Partial<X402Options>;
}

export interface RunningGateway {
  /** Base URL clients can use (a wildcard host is shown as loopback). */
  url: string;
  server: Server;
  /** Stop accepting, let in-flight requests and settlements finish within `limits.drainTimeoutMs`, then cut the rest. */
  close(): Promise<void>;
}

export interface Gateway {
  app: Express;
  metrics: GatewayMetrics;
  logger: Logger;
  listen(): Promise<RunningGateway>;
}

/** The standalone gateway: health, metrics, path and body limits, the paywall, then the upstream proxies. */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const logger = deps.logger ?? createGatewayLogger(config.logging.level);
  const metrics = createGatewayMetrics();
  const fetchImpl = deps.fetch ?? fetch;
  const loopbackListener = isLoopbackHost(config.listen.host);
  const tls = config.listen.tls !== undefined;
  let draining = false;

  const {
    listen,
    trustProxy,
    upstreams,
    limits,
    logging: _logging,
    metrics: metricsSettings,
    cors,
    ...settings
  } = config;
  const paywall = (deps.paywall ?? x402)({
    ...settings,
    logger: logger.child({ component: "x402" }),
    observer: metrics.observer,
    fetch: deps.fetch,
    // Plain HTTP is fine on a loopback listener, or when a trusted proxy says the client used HTTPS
    // (Express's req.secure reads X-Forwarded-Proto only from `trustProxy` addresses).
    requireTls: (req) => !tls && !loopbackListener && !req.secure,
    ...deps.paywallOverrides,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxy.length > 0 ? trustProxy : false);
  app.use(createAccessLog({ logger, onDone: (f) => metrics.request(f.route, f.outcome, f.code, f.seconds) }));
  app.use((_req, res, next) => {
    if (draining) res.setHeader("Connection", "close");
    next();
  });
  // A JSON API: nothing to load or frame, so the strictest CSP; CORP cross-origin because the priced
  // resources are meant to be fetched by clients on any origin (wallet apps, agents), and a paid answer
  // blocked by the browser would be a payment for nothing.
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      crossOriginResourcePolicy: { policy: "cross-origin" },
    }),
  );

  app.use(allowCrossOrigin(cors));

  app.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const readiness = await checkReadiness(config, fetchImpl);
    res.setHeader("Cache-Control", "no-store");
    res.status(readiness.ready && !draining ? 200 : 503).json({ ...readiness, draining });
  });
  if (metricsSettings.enabled) {
    app.get(metricsSettings.path, async (_req, res) => {
      res.setHeader("Content-Type", metrics.registry.contentType);
      res.setHeader("Cache-Control", "no-store");
      res.send(await metrics.registry.metrics());
    });
  }

  app.use(refuseFramingInConnection());
  app.use(normalizeRequestPath());
  app.use(limitRequestBody(limits.maxBodyBytes));
  app.use(paywall);
  // Longest prefix first, so `/api/admin` wins over `/api` and `/`.
  const byPrefix = [...upstreams].sort((a, b) => b.prefix.length - a.prefix.length);
  for (const upstream of byPrefix) {
    app.use(
      createUpstreamProxy({
        upstream,
        logger,
        onError: (code) => metrics.upstreamError(upstream.prefix, code),
      }),
    );
  }
  app.use((req, res) => {
    sendError(res, new GatewayError("not_found", `no upstream serves ${req.path}`));
  });
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const gatewayError =
      error instanceof GatewayError
        ? error
        : new GatewayError("internal_error", "the gateway failed", { cause: error });
    if (!(error instanceof GatewayError)) logger.error({ err: error }, "unhandled error");
    if (res.headersSent) return void res.destroy();
    sendError(res, gatewayError);
  };
  app.use(onError);

  return {
    app,
    metrics,
    logger,
    async listen() {
      const options = { maxHeaderSize: limits.maxHeaderBytes };
      const server: Server = listen.tls
        ? createHttpsServer(
            {
              ...options,
              cert: await readFile(listen.tls.certFile),
              key: await readFile(listen.tls.keyFile),
            },
            app,
          )
        : createHttpServer(options, app);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(listen.port, listen.host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      // Warn now, not at the first request, when the facilitator does not support a route's payment option.
      void paywall.checkSupport?.().catch(() => undefined);
      const address = server.address() as AddressInfo;
      const shown =
        address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
      const host = shown.includes(":") ? `[${shown}]` : shown;
      const url = `${listen.tls ? "https" : "http"}://${host}:${address.port}`;
      logger.info(
        { url, tls: Boolean(listen.tls), upstreams: upstreams.map((u) => `${u.prefix} → ${u.url}`) },
        "listening",
      );

      // While draining, a keep-alive connection is closed as soon as its last response is out.
      server.on("request", (_req, res: ServerResponse) =>
        res.once("finish", () => {
          if (draining) setImmediate(() => server.closeIdleConnections());
        }),
      );
      let closing: Promise<void> | undefined;
      const close = (): Promise<void> =>
        (closing ??= new Promise<void>((resolve) => {
          draining = true;
          logger.info({ drainTimeoutMs: limits.drainTimeoutMs }, "draining");
          const force = setTimeout(() => {
            logger.warn(
              { drainTimeoutMs: limits.drainTimeoutMs },
              "drain timeout: cutting remaining connections",
            );
            server.closeAllConnections();
          }, limits.drainTimeoutMs);
          server.close(() => {
            clearTimeout(force);
            // Only once every settlement is done: the ledger (Redis) is still needed until then.
            void (paywall.close?.() ?? Promise.resolve())
              .catch((error: unknown) => logger.warn({ err: error }, "closing the paywall failed"))
              .then(() => resolve());
          });
          server.closeIdleConnections();
        }));
      return { url, server, close };
    },
  };
}
