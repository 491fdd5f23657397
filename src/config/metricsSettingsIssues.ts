import type { AdminSettings, MetricsSettings } from "./gatewaySectionSchemas.js";

/**
 * What the metrics settings cannot be, given the rest of the config: served on the gateway's listener
 * without the admin token that guards them there, or on the gateway's own port.
 */
export function metricsSettingsIssues(config: {
  metrics: MetricsSettings;
  admin: AdminSettings;
  listen: { port: number };
}): Array<{ path: Array<string | number>; message: string }> {
  const { metrics } = config;
  if (!metrics.enabled) return [];
  const issues: Array<{ path: Array<string | number>; message: string }> = [];
  if (metrics.onGatewayListener && config.admin.token === undefined) {
    issues.push({
      path: ["metrics", "onGatewayListener"],
      message:
        "metrics.onGatewayListener needs admin.token (at least 32 characters): there the metrics are served only with Authorization: Bearer <admin.token>",
    });
  }
  const port = metrics.listen === false ? undefined : metrics.listen.port;
  if (port !== undefined && port !== 0 && port === config.listen.port) {
    issues.push({
      path: ["metrics", "listen", "port"],
      message: `metrics.listen.port may not be listen.port (${port}): the metrics listener is a second one`,
    });
  }
  return issues;
}
