import type { IncomingMessage, ServerResponse } from "node:http";
import { originFormOf, splitUrl } from "../paywall/request/requestParts.js";
import type { Middleware } from "./composeMiddleware.js";

/** A path the gateway answers itself (health, metrics…), never priced and never forwarded. */
export interface LocalRoute {
  path: string;
  /** `GET` and `HEAD` when not given. */
  methods?: readonly string[];
  answer(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

/** The path a request is routed by (absolute-form targets by their path), without the query. */
export function routedPath(url: string | undefined): string {
  return splitUrl(originFormOf(url ?? "/") ?? "").pathname;
}

/** Express's reading of a route path: case-insensitive, one trailing slash optional. */
function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
}

/**
 * Answer the gateway's own routes, by exact path (read as Express reads `app.get(path)`) and method;
 * any other request is passed on. One map lookup per request, however many routes.
 */
export function serveLocalRoutes(routes: readonly LocalRoute[]): Middleware {
  const byPath = new Map<string, LocalRoute>();
  for (const route of routes) byPath.set(routeKey(route.path), route);
  return (req, res, next) => {
    const route = byPath.get(routeKey(routedPath(req.url)));
    if (route === undefined || !(route.methods ?? ["GET", "HEAD"]).includes(req.method ?? "")) return next();
    return route.answer(req, res);
  };
}
