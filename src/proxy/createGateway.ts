import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import helmet from "helmet";
import type { Logger } from "pino";
import type { AdminSettings, GatewayConfig } from "../config/gatewayConfigSchema.js";
import { isLoopbackHost } from "../config/isLoopbackHost.js";
import type { X402Options } from "../middleware/options.js";
import { sendError } from "../middleware/respond.js";
import { x402 } from "../middleware/x402.js";
import { GatewayError } from "../protocol/errors.js";
import { allowCrossOrigin } from "./allowCrossOrigin.js";
import { composeMiddleware } from "./composeMiddleware.js";
import { createAccessLog } from "./createAccessLog.js";
import { createAdminEndpoint } from "./createAdminEndpoint.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";
import { createGatewayLogger } from "./createGatewayLogger.js";
import { createReadinessProbe } from "./createReadinessProbe.js";
import { createGatewayMetrics, type GatewayMetrics } from "./createGatewayMetrics.js";
import { createUpstreamProxy } from "./createUpstreamProxy.js";
import { limitRequestBody } from "./limitRequestBody.js";
import { normalizeRequestPath } from "./normalizeRequestPath.js";
import { refuseFramingInConnection } from "./refuseFramingInConnection.js";
import { precomputeHeaders } from "./precomputeHeaders.js";
import { addHealthRoutes, type DrainState } from "./addHealthRoutes.js";
import { listenGateway, type RunningGateway } from "./listenGateway.js";

/** What the gateway needs from the paywall: a middleware, and optionally what `x402()` adds. */
export type GatewayPaywall = RequestHandler & {
  /** Ask the facilitator's `/supported` and log unsupported routes. */
  checkSupport?: () => Promise<unknown>;
  /** Release what the paywall opened (a Redis ledger's connection). */
  close?: () => Promise<void>;
  /** Revoke a payer's recognition (the admin endpoint's `POST {admin.path}/revocations`). */
  revoke?: (request: RevocationRequest) => Promise<RevocationReceipt>;
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

export type { RunningGateway };

/** An assembled gateway, not yet listening: {@link listenGateway} serves it. */
export interface Gateway {
  app: Express;
  metrics: GatewayMetrics;
  logger: Logger;
  config: GatewayConfig;
  paywall: GatewayPaywall;
  /** Set once `close()` of the running gateway starts draining. */
  drain: DrainState;
  /** Shorthand for `listenGateway(gateway)`. */
  listen(): Promise<RunningGateway>;
}

/** The standalone gateway: health, metrics, path and body limits, the paywall, then the upstream proxies. */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const logger = deps.logger ?? createGatewayLogger(config.logging.level);
  const metrics = createGatewayMetrics();
  const fetchImpl = deps.fetch ?? fetch;
  const loopbackListener = isLoopbackHost(config.listen.host);
  const tls = config.listen.tls !== undefined;
  const drain: DrainState = { draining: false };

  const {
    listen: _listen,
    trustProxy,
    upstreams,
    limits,
    logging: _logging,
    metrics: metricsSettings,
    cors,
    admin: adminSettings,
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
  const accessLog = createAccessLog({
    logger,
    onDone: (f) => metrics.request(f.route, f.outcome, f.code, f.seconds),
  });
  const closeWhileDraining: RequestHandler = (_req, res, next) => {
    if (drain.draining) res.setHeader("Connection", "close");
    next();
  };
  // A JSON API: nothing to load or frame, so the strictest CSP; CORP cross-origin because the priced
  // resources are meant to be fetched by clients on any origin (wallet apps, agents), and a paid answer
  // blocked by the browser would be a payment for nothing. The policy is static: computed once.
  const securityHeaders = precomputeHeaders(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      crossOriginResourcePolicy: { policy: "cross-origin" },
    }),
  );
  // One router layer for what every request goes through first.
  app.use(composeMiddleware(accessLog, closeWhileDraining, securityHeaders, allowCrossOrigin(cors)));

  addHealthRoutes(app, createReadinessProbe(config, fetchImpl, logger), drain);
  if (metricsSettings.enabled) {
    app.get(metricsSettings.path, async (_req, res) => {
      res.setHeader("Content-Type", metrics.registry.contentType);
      res.setHeader("Cache-Control", "no-store");
      res.send(await metrics.registry.metrics());
    });
  }

  app.use(refuseFramingInConnection());
  const admin = createAdmin(adminSettings, paywall, logger);
  app.use(
    composeMiddleware(
      normalizeRequestPath(),
      ...(admin ? [admin] : []),
      limitRequestBody(limits.maxBodyBytes),
      paywall,
    ),
  );
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

  const gateway: Gateway = {
    app,
    metrics,
    logger,
    config,
    paywall,
    drain,
    listen: () => listenGateway(gateway),
  };
  return gateway;
}

/** The admin endpoint when `admin.enabled`; it revokes through the paywall, which must offer `revoke`. */
function createAdmin(
  settings: AdminSettings,
  paywall: GatewayPaywall,
  logger: Logger,
): RequestHandler | undefined {
  if (!settings.enabled) return undefined;
  const { revoke } = paywall;
  if (settings.token === undefined || revoke === undefined) {
    throw new Error("admin.enabled needs admin.token and a paywall with revoke()");
  }
  return createAdminEndpoint({
    path: settings.path,
    token: settings.token,
    revoke,
    logger: logger.child({ component: "admin" }),
  });
}
