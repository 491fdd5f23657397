import type { RequestFacts } from "../request/RequestFacts.js";
import { PASS_TOKEN_PREFIX } from "./passToken.js";

/** A pass token a request shows, and whether it came as `Authorization: Bearer` (else a cookie). */
export interface ShownPass {
  token: string;
  bearer: boolean;
}

/** At most this many cookies of the pass's name are tried (nested paths each set one). */
const MAX_COOKIES = 4;

/**
 * The pass tokens a request shows: `Authorization: Bearer xp1.…` first, then the cookies named `cookieName`
 * in the order the browser sent them (most specific path first). A bearer token of another kind is not a
 * pass: it is left for the resource.
 */
export function passCredentials(req: RequestFacts, cookieName: string): ShownPass[] {
  const shown: ShownPass[] = [];
  const authorization = req.headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match?.[1]?.startsWith(PASS_TOKEN_PREFIX)) shown.push({ token: match[1], bearer: true });
  }
  for (const value of passCookies(req.headers.cookie, cookieName))
    if (shown.length < MAX_COOKIES + 1) shown.push({ token: value, bearer: false });
  return shown;
}

/** Drop the pass from what the resource gets: its bearer token and its cookies (others are kept). */
export function dropPassCredentials(req: RequestFacts, cookieName: string): void {
  const headers = req.headers as Record<string, string | string[] | undefined>;
  const authorization = headers.authorization;
  if (typeof authorization === "string" && /^Bearer +xp1\./i.test(authorization))
    delete headers.authorization;
  const cookie = headers.cookie;
  if (typeof cookie !== "string") return;
  const kept = cookie
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "" && pair.split("=", 1)[0] !== cookieName);
  if (kept.length === 0) delete headers.cookie;
  else headers.cookie = kept.join("; ");
}

function passCookies(header: string | string[] | undefined, cookieName: string): string[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join("; ") : header;
  const values: string[] = [];
  for (const pair of text.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0 || pair.slice(0, at).trim() !== cookieName) continue;
    values.push(pair.slice(at + 1).trim());
    if (values.length === MAX_COOKIES) break;
  }
  return values;
}

/** The `Set-Cookie` line of a pass: HttpOnly, SameSite=Strict, Secure unless served on loopback over HTTP. */
export function passCookie(
  name: string,
  token: string,
  path: string,
  seconds: number,
  secure: boolean,
): string {
  return `${name}=${token}; Path=${path}; Max-Age=${seconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/**
 * The path a pass's cookie is scoped to: the literal segments every route of its scope starts with (up to
 * the first parameter or wildcard), `/` when they share none.
 */
export function cookiePathOf(routeKeys: readonly string[]): string {
  const prefixes = routeKeys.map((key) => {
    const path = key.trim().split(/\s+/).pop() ?? "/";
    const literal: string[] = [];
    for (const segment of path.split("/").slice(1)) {
      if (segment === "" || /[:*[\](){}?+]/.test(segment)) break;
      literal.push(segment);
    }
    return literal;
  });
  const [first = [], ...others] = prefixes;
  let length = first.length;
  for (const other of others) {
    let same = 0;
    while (same < Math.min(length, other.length) && other[same]?.toLowerCase() === first[same]?.toLowerCase())
      same++;
    length = same;
  }
  return "/" + first.slice(0, length).map(cookieSafe).join("/");
}

/** The cookie path under a mount point (`""` at the root). */
export function joinPath(mountPath: string, path: string): string {
  const mount = cookieSafe(mountPath.replace(/\/+$/, ""));
  if (mount === "") return path;
  return path === "/" ? mount : mount + path;
}

/** A path as a cookie attribute may carry it: no `;`, controls or spaces. */
function cookieSafe(text: string): string {
  return text.replace(/[^\x21-\x3a\x3c-\x7e]/g, (c) => encodeURIComponent(c));
}
