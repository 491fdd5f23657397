import { STANDARD_METHODS } from "../../pricing/compileRoutePattern.js";
import type { RouteMatch, RouteTable } from "../../pricing/RouteTable.js";

/**
 * The methods a path may be requested with, when some route prices it: the standard ones, and the
 * extension methods a route names that price this path; `undefined` when no method is priced there.
 * `matchAs` matches this request's path with another method.
 */
export function allowedMethods(
  routes: RouteTable,
  matchAs: (method: string) => RouteMatch,
): string[] | undefined {
  const named = new Set<string>();
  for (const route of routes.routes) {
    const method = route.pattern.method;
    if (method !== undefined && !STANDARD_METHODS.includes(method)) named.add(method);
  }
  const extensions = [...named].filter((method) => matchAs(method).kind === "priced");
  const priced =
    extensions.length > 0 || STANDARD_METHODS.some((method) => matchAs(method).kind === "priced");
  return priced ? [...STANDARD_METHODS, ...extensions] : undefined;
}
