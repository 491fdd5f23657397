import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from "node:http";
import type { Middleware, Next } from "./composeMiddleware.js";

/** A connect-style middleware, as helmet is. */
type ConnectMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/**
 * Run a middleware that only sets constant headers (helmet with a static policy) once, at start-up,
 * and replay what it set on every request: the same headers for a fraction of the work.
 * Throws when the middleware does not call `next()` synchronously (it would not be constant).
 */
export function precomputeHeaders(middleware: ConnectMiddleware): Middleware & ConnectMiddleware {
  const headers: Array<[string, OutgoingHttpHeader]> = [];
  const removed: string[] = [];
  const probe = {
    setHeader(name: string, value: OutgoingHttpHeader) {
      headers.push([name, value]);
      return probe;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
    getHeader: () => undefined,
    hasHeader: () => false,
  };
  let passed = false;
  const request = { method: "GET", url: "/", headers: {} } as IncomingMessage;
  middleware(request, probe as unknown as ServerResponse, (error?: unknown) => {
    if (error !== undefined) throw error;
    passed = true;
  });
  if (!passed) throw new Error("precomputeHeaders: the middleware did not pass the request on synchronously");
  return (_req: IncomingMessage, res: ServerResponse, next: Next): void => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
