import { parse as parseLegacyUrl } from "node:url";
import type { IncomingHttpHeaders } from "node:http";

/** A header's value, repeated headers joined as Node would. */
export function headerOf(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/**
 * `"/a?b"` → `{ pathname: "/a", search: "?b" }`. A fragment (`#…`) is dropped, as Express and
 * http-proxy drop it: it is never part of what is routed or forwarded.
 */
export function splitUrl(url: string): { pathname: string; search: string } {
  const hash = url.indexOf("#");
  if (hash !== -1) url = url.slice(0, hash);
  const index = url.indexOf("?");
  return index === -1
    ? { pathname: url, search: "" }
    : { pathname: url.slice(0, index), search: url.slice(index) };
}

/**
 * The request target in origin form (`/path?query`): an absolute-form target (`http://host/path`) is
 * reduced to the path and query Express routes on (its router reads them with the same legacy
 * `url.parse`), so it is priced by that same path. `undefined` for a target with no path (`*`).
 */
export function originFormOf(url: string): string | undefined {
  if (url.startsWith("/")) return url;
  const { pathname, search } = parseLegacyUrl(url);
  if (pathname === null || !pathname.startsWith("/")) return undefined;
  return pathname + (search ?? "");
}
