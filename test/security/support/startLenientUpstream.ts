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
    let next = path.replace(/;[^/]*/g, "");
    try {
      next = decodeURIComponent(next);
    } catch {
      next = next.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    next = next.replace(/[#?\0][\s\S]*$/, "");
    next = next.normalize("NFKC").replace(/\\/g, "/").replaceAll(FULLWIDTH_SPACE, " ");
    next = next
      .split("/")
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
  return `/${segments.join("/")}`.toLowerCase();
}

/** The method a lenient framework runs: the override header's, when there is one. */
function lenientMethod(req: IncomingMessage): string {
  for (const name of ["x-http-method-override", "x-http-method", "x-method-override"]) {
    const value = req.headers[name];
    if (typeof value === "string" && value.trim() !== "") return value.trim().toUpperCase();
  }
  return req.method ?? "GET";
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
    req.resume();
    req.on("end", () => {
      const method = lenientMethod(req);
      const path = lenientRead(req.url ?? "/");
      const exact = patterns.find(
        (p) =>
          (p.method === method || (p.method === "GET" && method === "HEAD")) &&
          p.key.toLowerCase() === `${p.method} ${path}`.toLowerCase(),
      );
      const found =
        exact ??
        patterns.find(
          (p) => (p.method === method || (p.method === "GET" && method === "HEAD")) && p.regex.test(path),
        );
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
