import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Middleware } from "./composeMiddleware.js";

/** Requests whose `Expect: 100-continue` the server left for the pipeline to answer. */
const deferred = new WeakSet<IncomingMessage>();

/**
 * Let the gateway, not Node, decide when to answer `Expect: 100-continue`: Node sends `100 Continue`
 * before any handler runs unless a `checkContinue` listener is set, which told a client to send the
 * body of a priced request before the paywall had answered 402.
 */
export function deferContinue(server: Server): void {
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    deferred.add(req);
    server.emit("request", req, res);
  });
}

/**
 * `100 Continue`, once the request is on its way upstream (free, or paid and verified): placed right
 * before the proxies, so every refusal (402, 400, 413…) is the final answer the client gets instead, and
 * Node then closes the connection rather than read a body that may never come.
 */
export function sendDeferredContinue(): Middleware {
  return (req, res, next) => {
    if (deferred.delete(req)) res.writeContinue();
    next();
  };
}
