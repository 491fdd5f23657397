import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * Run middleware in order as one Express layer, so the router's per-layer work is paid once per request.
 * An error (thrown, rejected or passed to `next`) skips the rest and goes to Express's error handlers.
 */
export function composeMiddleware(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index++];
      if (handler === undefined) return next();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
