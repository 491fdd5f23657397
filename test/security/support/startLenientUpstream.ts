import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface LenientUpstream {
  url: string;
  /** Requests that reached a priced resource, by `"METHOD /path"`. */
  hits: Map<string, number>;
  /** Total of {@link hits}. */
  hitCount(): number;
  stop(): Promise<void>;
}

const FULLWIDTH_SPACE = "\u3000";

/**
 * The most lenient reading of a request target this test can think of (Tomcat + Spring + IIS + a
 * double-decoding proxy at once): absolute form reduced to its path, fragment and query cut, `;params`
 * dropped, decoded until stable, cut at a decoded `#`/`?`/NUL, trailing dots and spaces dropped,
 * NFKC, `\` as `/`, dot segments resolved, case folded. Written independently of src/pricing.
 */
export function lenientRead(target: string): string {
  let path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  path = path.replace(/[#?][\s\S]*$/, "");
  for (let round = 0; round < 8; round++) {
    let next = decodeOverlong(path.replace(/;[^/]*/g, ""));
    try {
      next = decodeURIComponent(next);
    } catch {
      next = next.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    next = next.replace(/[#?\0][\s\S]*$/, "");
    next = next.normalize("NFKC").replace(/\\/g, "/").replaceAll(FULLWIDTH_SPACE, " ");
    // Spring's trimTokens: whitespace (tab, CR, LF…) around each segment is dropped.
    next = next
      .split("/")
      .map((segment) => segment.trim())
      .map((segment) => (/^\.+$/.test(segment) ? segment : segment.replace(/[. ]+$/, "")))
      .join("/");
    if (next === path) break;
    path = next;
  }
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  // A format suffix is the same resource (Spring suffix matching: everything from the first dot).
  const last = segments.length - 1;
  if (last >= 0) segments[last] = (segments[last] as string).replace(/^(.+?)\..*$/, "$1");
  return `/${segments.join("/")}`.toLowerCase();
}

/** Overlong UTF-8 escapes (`%c0%af` for `/`, `%c0%ae` for `.`) read as the ASCII they spell, as old decoders did. */
function decodeOverlong(path: string): string {
  return path
    .replace(/%(c[01])%([89ab][0-9a-f])/gi, (_, a: string, b: string) =>
      String.fromCharCode(((parseInt(a, 16) & 0x1f) << 6) | (parseInt(b, 16) & 0x3f)),
    )
    .replace(/%e0%([89][0-9a-f])%([89ab][0-9a-f])/gi, (_, b: string, c: string) =>
      String.fromCharCode(((parseInt(b, 16) & 0x3f) << 6) | (parseInt(c, 16) & 0x3f)),
    );
}

/** Methods this upstream tells apart; any other (TRACE, PURGE, PROPFIND…) it ignores, as Go handlers do. */
const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The method a lenient framework runs: the override header's, when there is one; on a POST, a `_method`
 * in the query or a urlencoded form body (Rails, Laravel, Symfony); `*` (any route's) for a method it
 * does not know.
 */
function lenientMethod(req: IncomingMessage, body: string): string {
  for (const name of ["x-http-method-override", "x-http-method", "x-method-override"]) {
    const value = req.headers[name];
    if (typeof value === "string" && value.trim() !== "") return value.trim().toUpperCase();
  }
  const method = req.method ?? "GET";
  if (method === "POST") {
    const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "").get("_method");
    const form = /urlencoded/i.test(req.headers["content-type"] ?? "")
      ? new URLSearchParams(body).get("_method")
      : null;
    const override = (query ?? form)?.trim().toUpperCase();
    if (override) return override;
  }
  return KNOWN_METHODS.includes(method) ? method : "*";
}

/** The target IIS / Symfony / Spring route on: `X-Original-URL` or `X-Rewrite-URL`, `X-Forwarded-Prefix` before it. */
function rewrittenTarget(req: IncomingMessage): string {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const target = header("x-original-url") ?? header("x-rewrite-url") ?? req.url ?? "/";
  return `${header("x-forwarded-prefix") ?? ""}${target}`;
}

/** Whether a route of `routeMethod` serves a request the upstream reads as `method`. */
function serves(routeMethod: string, method: string): boolean {
  return routeMethod === method || method === "*" || (routeMethod === "GET" && method === "HEAD");
}

/**
 * A deliberately lenient upstream on 127.0.0.1:0: it serves `priced` resources (`"GET /api/apy"`,
 * `"GET /api/r/:id"`) to whatever its lenient reading maps onto them, and counts every such hit.
 * Anything else is 404.
 */
export async function startLenientUpstream(priced: readonly string[]): Promise<LenientUpstream> {
  const hits = new Map<string, number>();
  const patterns = priced.map((key) => {
    const [method, path] = key.split(" ") as [string, string];
    const source = path
      .toLowerCase()
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    return { key, method, regex: new RegExp(`^${source}$`) };
  });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("latin1")));
    req.on("end", () => {
      const method = lenientMethod(req, body);
      const path = lenientRead(rewrittenTarget(req));
      const exact = patterns.find(
        (p) => serves(p.method, method) && p.key.toLowerCase() === `${p.method} ${path}`.toLowerCase(),
      );
      const found = exact ?? patterns.find((p) => serves(p.method, method) && p.regex.test(path));
      if (!found) {
        res.writeHead(404, { "Content-Type": "application/json" });
        return void res.end(JSON.stringify({ error: "not_found", path }));
      }
      const key = `${method} ${path}`;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ served: key, route: found.key }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    hitCount: () => [...hits.values()].reduce((a, b) => a + b, 0),
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
