import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { PaywallRequestInfo } from "../paywall/flow/PaywallObserver.js";
import type { Middleware } from "./composeMiddleware.js";
import { censorHeader, forCensoredHeaders, REDACTED_HEADERS } from "./createGatewayLogger.js";

/** Headers worth a log line; the sensitive ones are censored here, whatever logger writes the line. */
const LOGGED_HEADERS = [
  "user-agent",
  "content-type",
  "content-length",
  "payment-signature",
  "sign-in-with-x",
  "authorization",
];

const CENSORED = new Set(LOGGED_HEADERS.filter((name) => REDACTED_HEADERS.includes(name)));

export interface AccessLogOptions {
  logger: Logger;
  /** The paywall's record of a priced request (route, outcome, payer…); `undefined` for a free one. */
  infoOf: (res: ServerResponse) => PaywallRequestInfo | undefined;
  /** The client's address as the gateway believes it (a trusted proxy's `X-Forwarded-For`). */
  clientAddress: (req: IncomingMessage) => string;
  /** Called once per request when its response is over (finished or cut). */
  onDone?: (facts: { route: string; outcome: string; code: string; seconds: number }) => void;
}

/** One JSON line per request: route, status, payer, amount, settlement tx, latency. */
export function createAccessLog({ logger, infoOf, clientAddress, onDone }: AccessLogOptions): Middleware {
  const lines = forCensoredHeaders(logger);
  return (req, res, next) => {
    const started = performance.now();
    const method = req.method;
    // Before the path is normalised: the log shows what the client sent.
    const url = req.url ?? "/";
    const headers: Record<string, unknown> = {};
    for (const name of LOGGED_HEADERS) {
      const value = req.headers[name];
      if (value !== undefined) headers[name] = CENSORED.has(name) ? censorHeader(name, value) : value;
    }
    res.once("close", () => {
      const ms = performance.now() - started;
      const info = infoOf(res);
      const route = info?.route ?? "unpriced";
      const outcome = info?.outcome ?? "free";
      const completed = res.writableFinished;
      const code = info?.code ?? (completed ? String(res.statusCode) : "aborted");
      onDone?.({ route, outcome, code, seconds: ms / 1000 });
      const query = url.indexOf("?");
      lines.info(
        {
          method,
          path: query === -1 ? url : url.slice(0, query),
          status: completed ? res.statusCode : undefined,
          aborted: completed ? undefined : true,
          route: info?.route,
          outcome,
          code: info?.code,
          payer: info?.payer,
          amount: info?.amount,
          transaction: info?.transaction,
          latencyMs: Math.round(ms * 10) / 10,
          remoteAddress: clientAddress(req),
          headers,
        },
        "request",
      );
    });
    next();
  };
}
