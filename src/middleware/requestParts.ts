import type { Request } from "express";

/** A header's value, repeated headers joined as Node would. */
export function headerOf(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `"/a?b"` → `{ pathname: "/a", search: "?b" }`. */
export function splitUrl(url: string): { pathname: string; search: string } {
  const index = url.indexOf("?");
  return index === -1
    ? { pathname: url, search: "" }
    : { pathname: url.slice(0, index), search: url.slice(index) };
}
