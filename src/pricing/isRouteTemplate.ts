/** Path characters only (no `%`: nothing to decode), e.g. `/users/:id`. */
const TEMPLATE = /^\/[A-Za-z0-9_/:.\-~]+$/;

/**
 * Whether `value` is a `routeTemplate` a facilitator catalogues as it is: a path of unencoded characters
 * (`/weather/:city`), without `..` (traversal) or `//` (a `://` would make it a URL).
 */
export function isRouteTemplate(value: unknown): value is string {
  return typeof value === "string" && TEMPLATE.test(value) && !value.includes("..") && !value.includes("//");
}
