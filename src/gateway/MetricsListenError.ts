import { BaseError } from "../common/BaseError.js";

/** The metrics listener (`metrics.listen`) could not bind: the gateway does not start without it. */
export class MetricsListenError extends BaseError {
  constructor(host: string, port: number, cause: unknown) {
    super(
      "metrics_listen_failed",
      `cannot listen for metrics on ${host}:${port} (metrics.listen): ${(cause as Error).message}`,
      { details: { host, port }, cause, docsPath: "docs/gateway.md" },
    );
  }
}
