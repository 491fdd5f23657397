import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import helmet from "helmet";
import type { Logger } from "pino";
import { ConfigError } from "../config/ConfigError.js";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import type { AdminSettings } from "../config/gatewaySectionSchemas.js";
import type { PaywallRequestInfo } from "../paywall/flow/PaywallObserver.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import { sendError } from "../paywall/responses/respond.js";
import { nodeRequestFacts } from "../adapters/nodeRequestFacts.js";
import { nodePaywall, type X402NodeOptions } from "../adapters/node.js";
import { GatewayError } from "../protocol/errors.js";
import { buildRouteTable } from "../pricing/buildRouteTable.js";
import { allowCrossOrigin } from "./allowCrossOrigin.js";
import { answerPricedOptions } from "./answerPricedOptions.js";
import { composeMiddleware, type Middleware } from "./composeMiddleware.js";
import { createAccessLog } from "./createAccessLog.js";
import { createAdminEndpoint } from "./createAdminEndpoint.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";
import { createGatewayLogger } from "./createGatewayLogger.js";
import { createReadinessProbe } from "./createReadinessProbe.js";
import { createGatewayRecorder, type GatewayRecorder } from "./createGatewayRecorder.js";
import { createGatewayMetrics, type GatewayMetrics } from "./createGatewayMetrics.js";
import { createUpstreamProxy } from "./createUpstreamProxy.js";
import { sendDeferredContinue } from "./deferredContinue.js";
import { healthRoutes, type DrainState } from "./healthRoutes.js";
import { limitRequestBody } from "./limitRequestBody.js";
import { listenGateway, type RunningGateway } from "./listenGateway.js";
import { metricsRoute } from "./metricsRoute.js";
import { normalizeRequestPath } from "./normalizeRequestPath.js";
import { openApiBodySchemas } from "./openApiBodySchemas.js";
import { precomputeHeaders } from "./precomputeHeaders.js";
import { ProxyTrust } from "./ProxyTrust.js";
import { gatewayRequiresTls } from "./gatewayRequiresTls.js";
import { refuseFramingInConnection } from "./refuseFramingInConnection.js";
import { refuseUnframedBodies } from "./refuseUnframedBodies.js";
import { routedPath, serveLocalRoutes, type LocalRoute } from "./serveLocalRoutes.js";

/**
 * What the gateway needs from the paywall: a connect-style `node:http` middleware (as `x402Node()` is),
 * and optionally what `x402Node()` adds.
 */
export type GatewayPaywall = ((req: IncomingMessage, res: ServerResponse, next: () => void) => unknown) & {
  /** Ask the facilitator's `/supported` and log unsupported routes. */
  checkSupport?: () => Promise<unknown>;
  /** Resolves once the paywall's start-up checks passed (OpenAPI request-body schemas); rejects with why not. */
  ready?: () => Promise<void>;
  /** Release what the paywall opened (a Redis ledger's connection). */
  close?: () => Promise<void>;
  /** The outcome record of a priced request, for the access log and the metrics. */
  infoOf?: (res: ServerResponse) => PaywallRequestInfo | undefined;
  /** Revoke a payer's recognition (the admin endpoint's `POST {admin.path}/revocations`). */
  revoke?: (request: RevocationRequest) => Promise<RevocationReceipt>;
  /** The ledger's health check within `timeoutMs`, for `/readyz` (undefined: nothing to check). */
  ledgerHealth?: (timeoutMs: number) => Promise<LedgerHealth | undefined>;
};

export interface GatewayDeps {
  /**
   * Builds the paywall from the config's settings; by default `x402Node()`'s paywall reading the client's
   * address and protocol as the gateway does (`X-Forwarded-*` from `trustProxy` peers only).
   */
  paywall?: (options: X402NodeOptions) => GatewayPaywall;
  /** pino logger; by default one at `logging.level` on stdout. */
  logger?: Logger;
  /** `fetch` for the facilitator and the readiness probes. */
  fetch?: typeof fetch;
  /** Extra paywall options only code can give (a facilitator or ledger instance, `onPaid`, a clock…). */
  paywallOverrides?: Partial<X402NodeOptions>;
  /**
   * What `metrics.path` serves, given this gateway's registry; by default the registry's own text
   * (`serve --workers` serves every worker's, aggregated by the cluster's primary).
   */
  metricsText?: (registry: GatewayMetrics["registry"]) => () => Promise<string>;
}

export type { RunningGateway };

/** An assembled gateway, not yet listening: {@link listenGateway} serves it. */
export interface Gateway {
  /** The gateway as a `node:http` request listener (serve it, or hand it to supertest). */
  app: RequestListener;
  metrics: GatewayMetrics;
  /** What the metrics listener (and `metrics.onGatewayListener`) serves; undefined with metrics off. */
  metricsText: (() => Promise<string>) | undefined;
  logger: Logger;
  config: GatewayConfig;
  paywall: GatewayPaywall;
  /** Set once `close()` of the running gateway starts draining. */
  drain: DrainState;
  /** The payer recorder (`recorder` in the config): started and stopped with the listener. */
  recorder: GatewayRecorder | undefined;
  /** Shorthand for `listenGateway(gateway)`. */
  listen(): Promise<RunningGateway>;
}

/**
 * The standalone gateway, a plain `node:http` pipeline: access log and metrics, drain, security headers,
 * CORS, its own routes (health; metrics with `metrics.onGatewayListener`), then framing, path and body checks, the paywall, OPTIONS on
 * priced paths, and the upstream proxies (longest prefix first); `404 not_found` when none serves the path.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps = {}): Gateway {
  const logger = deps.logger ?? createGatewayLogger(config.logging.level);
  const metrics = createGatewayMetrics();
  const fetchImpl = deps.fetch ?? fetch;
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
    facilitatorSupport: _facilitatorSupport,
    plugins: _plugins,
    ...settings
  } = config;
  const trust = new ProxyTrust(trustProxy);
  const { recorder: _recorder, ...paywallSettings } = settings;
  const recorder = createGatewayRecorder(config, { logger, registry: metrics.registry });
  const onPaid = deps.paywallOverrides?.onPaid;
  const recordingOnPaid =
    recorder === undefined
      ? {}
      : {
          onPaid: (event: Parameters<typeof recorder.onPaid>[0]) => {
            recorder.onPaid(event);
            return onPaid?.(event);
          },
        };
  const paywall = (
    deps.paywall ?? ((options) => nodePaywall(options, (req) => nodeRequestFacts(req, trust)))
  )({
    ...paywallSettings,
    logger: logger.child({ component: "x402" }),
    observer: metrics.observer,
    fetch: deps.fetch,
    requireTls: gatewayRequiresTls(config, trust),
    maxBodyBytes: limits.maxBodyBytes,
    loadRequestBodySchema: openApiBodySchemas(upstreams, fetchImpl),
    ...deps.paywallOverrides,
    ...recordingOnPaid,
  });

  const accessLog = createAccessLog({
    logger,
    infoOf: (res) => paywall.infoOf?.(res),
    clientAddress: (req) => trust.clientAddress(req),
    onDone: (f) => metrics.request(f.route, f.outcome, f.code, f.seconds),
  });
  const closeWhileDraining: Middleware = (_req, res, next) => {
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
  const readiness = createReadinessProbe(config, fetchImpl, logger, {
    ledgerHealth: paywall.ledgerHealth?.bind(paywall),
    ...(recorder === undefined ? {} : { advisory: () => [{ name: "recorder", ...recorder.health() }] }),
  });
  const localRoutes: LocalRoute[] = [...healthRoutes(readiness, drain)];
  const metricsText = metricsSettings.enabled
    ? (deps.metricsText?.(metrics.registry) ?? (() => metrics.registry.metrics()))
    : undefined;
  // On the gateway's own listener only when asked, and then only with the admin token: metrics show revenue.
  if (metricsText && metricsSettings.onGatewayListener) {
    const token = adminSettings.token;
    if (token === undefined) {
      const message = "metrics.onGatewayListener needs admin.token";
      throw new ConfigError([{ file: "(gateway config)", path: "metrics.onGatewayListener", message }]);
    }
    localRoutes.push(metricsRoute(metricsSettings.path, metrics.registry.contentType, metricsText, token));
  }
  // Longest prefix first, so `/api/admin` wins over `/api` and `/`.
  const proxies = [...upstreams]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .map((upstream) =>
      createUpstreamProxy({
        upstream,
        logger,
        trust,
        publicUrl: config.publicUrl,
        onError: (code) => metrics.upstreamError(upstream.prefix, code),
      }),
    );

  const pipeline = composeMiddleware(
    accessLog,
    closeWhileDraining,
    securityHeaders,
    allowCrossOrigin(cors),
    serveLocalRoutes(localRoutes),
    refuseFramingInConnection(),
    refuseUnframedBodies(),
    normalizeRequestPath(),
    ...createAdmin(adminSettings, paywall, logger, (req) => trust.clientAddress(req)),
    limitRequestBody(limits.maxBodyBytes),
    paywall,
    answerPricedOptions(buildRouteTable(config)),
    sendDeferredContinue(),
    ...proxies,
  );
  const fail = (error: unknown, res: ServerResponse): void => {
    const gatewayError =
      error instanceof GatewayError
        ? error
        : new GatewayError("internal_error", "the gateway failed", { cause: error });
    if (!(error instanceof GatewayError)) logger.error({ err: error }, "unhandled error");
    if (res.headersSent) return void res.destroy();
    sendError(res, gatewayError);
  };
  const app: RequestListener = (req, res) =>
    pipeline(req, res, (error) => {
      if (error !== undefined) return fail(error, res);
      sendError(res, new GatewayError("not_found", `no upstream serves ${routedPath(req.url)}`));
    });

  const gateway: Gateway = {
    app,
    metrics,
    metricsText,
    logger,
    config,
    paywall,
    drain,
    recorder,
    listen: () => listenGateway(gateway),
  };
  return gateway;
}

/** The admin endpoint when `admin.enabled`; it revokes through the paywall, which must offer `revoke`. */
function createAdmin(
  settings: AdminSettings,
  paywall: GatewayPaywall,
  logger: Logger,
  clientAddress: (req: IncomingMessage) => string | undefined,
): Middleware[] {
  if (!settings.enabled) return [];
  const { revoke } = paywall;
  if (settings.token === undefined || revoke === undefined) {
    // The schema demands the token, but a config built in code or a custom paywall can still lack what this needs.
    const missing = settings.token === undefined ? "admin.token" : "a paywall with revoke()";
    const message = `admin.enabled needs ${missing}`;
    throw new ConfigError([{ file: "(gateway config)", path: "admin.enabled", message }]);
  }
  return [
    createAdminEndpoint({
      path: settings.path,
      token: settings.token,
      revoke,
      clientAddress,
      logger: logger.child({ component: "admin" }),
    }),
  ];
}
