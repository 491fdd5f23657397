import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An upstream that counts what it serves, on 127.0.0.1:0. By the path's last segment: `reset` destroys
 * the socket, `hang` never answers, `500` answers 500, `cut` promises 1000 bytes and closes after 11,
 * `held` answers when `releaseHeld()` is called, `flaky` answers 500 the first time and 200 after;
 * anything else answers 200 JSON `{ path, n }` (n: how many times this path was asked). Name load paths so
 * that no last segment is one of these words (`/paid/r500`, not `/paid/500`).
 */
export interface CountingUpstream {
  url: string;
  /** Requests received, by path (query dropped). */
  hits: Map<string, number>;
  /** 200 answers fully written. */
  served: number;
  /** Number of requests waiting on `/held`. */
  heldCount(): number;
  releaseHeld(): void;
  close(): Promise<void>;
}

export async function startCountingUpstream(): Promise<CountingUpstream> {
  const held: Array<() => void> = [];
  const upstream: CountingUpstream = {
    url: "",
    hits: new Map(),
    served: 0,
    heldCount: () => held.length,
    releaseHeld: () => held.splice(0).forEach((answer) => answer()),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.once("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const n = (upstream.hits.get(path) ?? 0) + 1;
      upstream.hits.set(path, n);
      const ok = () => {
        const body = JSON.stringify({ path, n });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body, () => upstream.served++);
      };
      const fault = path.split("/").pop();
      const fail = () => res.writeHead(500, { "content-type": "text/plain" }).end("upstream broke");
      if (fault === "reset") return void req.socket.destroy();
      if (fault === "hang") return;
      if (fault === "500" || (fault === "flaky" && n === 1)) return void fail();
      if (fault === "cut") {
        res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
        res.write('{"partial":');
        return void setTimeout(() => req.socket.destroy(), 20);
      }
      if (fault === "held") return void held.push(ok);
      ok();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}
