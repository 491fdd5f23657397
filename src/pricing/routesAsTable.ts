/**
 * Options whose `routes` is one route config rather than a table (it has `accepts`), as the official
 * `@x402/core` takes it: read as `{ "*": config }`, every request priced. Anything else is returned as it is.
 */
export function routesAsTable<T>(options: T): T {
  if (typeof options !== "object" || options === null) return options;
  const routes: unknown = (options as { routes?: unknown }).routes;
  if (typeof routes !== "object" || routes === null || Array.isArray(routes) || !("accepts" in routes))
    return options;
  return { ...options, routes: { "*": routes } };
}
