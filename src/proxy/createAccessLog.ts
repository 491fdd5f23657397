import type { RequestHandler } from "express";
import type { Logger } from "pino";
import type { PaywallRequestInfo } from "../middleware/PaywallObserver.js";

/** Headers worth a log line; the sensitive ones are redacted by the logger (see `createGatewayLogger`). */
const LOGGED_HEADERS = [
  "user-agent",
  "content-type",
  "content-length",
  "payment-signature",
  "sign-in-with-x",
  "authorization",
];

export interface AccessLogOptions {
  logger: Logger;
  /** Called once per request when its response is over (finished or cut). */
  onDone?: (facts: { route: string; outcome: string; code: string; seconds: number }) => void;
}

/** One JSON line per request: route, status, payer, amount, settlement tx, latency. */
export function createAccessLog({ logger, onDone }: AccessLogOptions): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const method = req.method;
    const url = req.originalUrl;
    const headers: Record<string, unknown> = {};
    for (const name of LOGGED_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
    res.once("close", () => {
      const ms = performance.now() - started;
      const info = res.locals.x402 as PaywallRequestInfo | undefined;
      const route = info?.route ?? "unpriced";
      const outcome = info?.outcome ?? "free";
      const completed = res.writableFinished;
      const code = info?.code ?? (completed ? String(res.statusCode) : "aborted");
      onDone?.({ route, outcome, code, seconds: ms / 1000 });
      logger.info(
        {
          method,
          path: url.split("?")[0],
          status: completed ? res.statusCode : undefined,
          aborted: completed ? undefined : true,
          route: info?.route,
          outcome,
          code: info?.code,
          payer: info?.payer,
          amount: info?.amount,
          transaction: info?.transaction,
          latencyMs: Math.round(ms * 10) / 10,
          remoteAddress: req.ip,
          headers,
        },
        "request",
      );
    });
    next();
  };
}
