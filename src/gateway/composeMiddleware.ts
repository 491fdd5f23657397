import type { IncomingMessage, ServerResponse } from "node:http";

/** Pass the request on (no argument) or fail it (an error). */
export type Next = (error?: unknown) => void;

/** A connect-style step of the gateway's pipeline, on Node's own request and response. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => unknown;

/**
 * Run middleware in order as one: each passes on with `next()`, or answers and stops. An error (thrown,
 * rejected or passed to `next`) skips the rest and goes to `done(error)`; `done()` when all passed.
 */
export function composeMiddleware(...handlers: Middleware[]): Middleware {
  return (req, res, done) => {
    let index = 0;
    const step: Next = (error) => {
      if (error !== undefined && error !== null) return done(error);
      const handler = handlers[index++];
      if (handler === undefined) return done();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    step();
  };
}
