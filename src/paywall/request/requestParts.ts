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
 * An absolute-form target every reader splits the same way: `http(s)://authority` then a path, a query or
 * nothing, with a plain host and port: any other authority (`%`, `\`, userinfo…) is split differently
 * by the legacy parser Express uses, so it is not taken.
 */
const ABSOLUTE_FORM = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?(?=[/?]|$)/i;

/**
 * The request target in origin form (`/path?query`): an absolute-form target (`http://host/path`) is
 * reduced to the path and query Express routes on, so it is priced by that same path. `undefined` for
 * anything else (`*`, a star before a path, `host:port`, `http:/api`): servers that resolve such a target against a
 * base reach a path the paywall never read, so the flow refuses it.
 */
export function originFormOf(url: string): string | undefined {
  if (url.startsWith("/")) return url;
  const authority = ABSOLUTE_FORM.exec(url);
  if (authority === null) return undefined;
  const rest = url.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}
