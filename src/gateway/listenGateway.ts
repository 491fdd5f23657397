import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Gateway } from "./createGateway.js";
import { ConfigError } from "../config/ConfigError.js";
import { plainHttpListenerProblem } from "../config/plainHttpListenerProblem.js";
import { deferContinue } from "./deferredContinue.js";
import { shownHost } from "./shownHost.js";
import { listenMetrics, type MetricsListener } from "./listenMetrics.js";
import { MetricsListenError } from "./MetricsListenError.js";
import { PaywallStartupError } from "./PaywallStartupError.js";
import { BaseError } from "../common/BaseError.js";
import { FacilitatorSupportError } from "../paywall/setup/FacilitatorSupportError.js";
import type { SupportReport } from "../paywall/setup/assemblePaymentFlow.js";
import { metricsListenerOf } from "../config/metricsListenerOf.js";

export interface RunningGateway {
  /** Base URL clients can use (a wildcard host is shown as loopback). */
  url: string;
  server: Server;
  /** Where the metrics listener serves `metrics.path`; undefined when there is none. */
  metricsUrl: string | undefined;
  /** Stop accepting, let in-flight requests and settlements finish within `limits.drainTimeoutMs`, then cut the rest. */
  close(): Promise<void>;
}

export interface ListenGatewayOptions {
  /**
   * Open the metrics listener (`metrics.listen`). Default true; `serve --workers` workers do not: the
   * cluster's primary serves every worker's metrics on it.
   */
  metricsListener?: boolean;
}

/**
 * Serve an assembled gateway on `listen` (HTTP or TLS) with the config's server limits, and its metrics on
 * `metrics.listen`; its `close()` drains: new requests are told `Connection: close`, `/readyz` answers
 * 503, in-flight ones finish; the metrics listener closes last.
 */
export async function listenGateway(
  gateway: Gateway,
  listenOptions: ListenGatewayOptions = {},
): Promise<RunningGateway> {
  const { app, logger, paywall, drain } = gateway;
  const { listen, limits, upstreams } = gateway.config;
  // The config's schema refuses this too; a host set after loading (serve --host) is checked here.
  const plainHttp = plainHttpListenerProblem(gateway.config);
  if (plainHttp !== undefined) {
    throw new ConfigError([{ file: "(gateway config)", path: "listen.host", message: plainHttp }]);
  }
  const options = {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts on this interval (30 s by default, which is what let a slow head last ~87 s).
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  const server: Server = listen.tls
    ? createHttpsServer(
        { ...options, cert: await readFile(listen.tls.certFile), key: await readFile(listen.tls.keyFile) },
        app,
      )
    : createHttpServer(options, app);
  server.maxConnections = limits.maxConnections;
  deferContinue(server);
  // No start while a route's OpenAPI body schema cannot be loaded.
  try {
    await paywall.ready?.();
  } catch (error) {
    throw error instanceof BaseError ? error : new PaywallStartupError(error as Error);
  }
  // facilitatorSupport: require — no start while the facilitator cannot settle some priced option.
  if (gateway.config.facilitatorSupport === "require" && paywall.checkSupport) {
    const report = (await paywall.checkSupport()) as SupportReport;
    if (!report.ok) throw new FacilitatorSupportError(report);
  }
  // The payer recorder loads its key now: no start without it.
  await gateway.recorder?.start();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(listen.port, listen.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await gateway.recorder?.stop();
    throw error;
  }
  const metricsAt = listenOptions.metricsListener === false ? undefined : metricsListenerOf(gateway.config);
  let metricsListener: MetricsListener | undefined;
  if (metricsAt !== undefined && gateway.metricsText !== undefined) {
    try {
      metricsListener = await listenMetrics({
        ...metricsAt,
        contentType: gateway.metrics.registry.contentType,
        text: gateway.metricsText,
      });
    } catch (error) {
      server.close();
      await gateway.recorder?.stop();
      throw new MetricsListenError(metricsAt.host, metricsAt.port, error);
    }
  }
  // Warn now, not at the first request, when the facilitator does not support a route's payment option
  // (the report is read once: with require, this is the one read above).
  void paywall.checkSupport?.().catch(() => undefined);
  const address = server.address() as AddressInfo;
  const url = `${listen.tls ? "https" : "http"}://${shownHost(address)}:${address.port}`;
  logger.info(
    {
      url,
      tls: Boolean(listen.tls),
      upstreams: upstreams.map((u) => `${u.prefix} → ${u.url}`),
      metrics: metricsListener?.url,
    },
    "listening",
  );

  // While draining, a keep-alive connection is closed as soon as its last response is out.
  server.on("request", (_req, res: ServerResponse) =>
    res.once("finish", () => {
      if (drain.draining) setImmediate(() => server.closeIdleConnections());
    }),
  );
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      drain.draining = true;
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
          // after the last paid event: what it queued stays queued for the next start
          .then(() => gateway.recorder?.stop())
          .catch((error: unknown) => logger.warn({ err: error }, "stopping the payer recorder failed"))
          .then(() => metricsListener?.close())
          .then(() => new Promise<void>((flushed) => logger.flush(() => flushed())))
          .then(() => resolve());
      });
      server.closeIdleConnections();
    }));
  return { url, server, metricsUrl: metricsListener?.url, close };
}
