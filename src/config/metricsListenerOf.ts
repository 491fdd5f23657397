import type { GatewayConfig } from "./gatewayConfigSchema.js";
import { GATEWAY_DEFAULTS } from "./gatewaySectionSchemas.js";

/**
 * Where the metrics listener binds, or undefined when there is none (metrics off, or `metrics.listen:
 * false`). Its port defaults to 9402, or to 0 (a free one) when the gateway's own is 0: a gateway told to
 * pick a free port (tests, `npm start` with `X402_GATEWAY_PORT=0`) does not take a fixed one beside it.
 */
export function metricsListenerOf(
  config: Pick<GatewayConfig, "metrics" | "listen">,
): { host: string; port: number; path: string } | undefined {
  const { metrics } = config;
  if (!metrics.enabled || metrics.listen === false) return undefined;
  const port = metrics.listen.port ?? (config.listen.port === 0 ? 0 : GATEWAY_DEFAULTS.metricsPort);
  return { host: metrics.listen.host, port, path: metrics.path };
}
