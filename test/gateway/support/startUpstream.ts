import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
  /** False when the request body never ended (the gateway cut it). */
  complete: boolean;
}

export interface TestUpstream {
  url: string;
  seen: SeenRequest[];
  /** Resolves with the next request the upstream finishes reading (or sees cut). */
  nextRequest(): Promise<SeenRequest>;
  stop(): Promise<void>;
}

/**
 * A real upstream on 127.0.0.1:0. Paths: `/500` answers 500, `/hang` never answers, `/reset` destroys
 * the socket, `/slow-body` sends headers then hangs, `/release` answers when `release()` is called;
 * anything else answers 200 JSON describing the request.
 */
export async function startUpstream(): Promise<TestUpstream & { release(): void }> {
  const seen: SeenRequest[] = [];
  const waiters: Array<(request: SeenRequest) => void> = [];
  const held: ServerResponse[] = [];
  const record = (request: SeenRequest) => {
    seen.push(request);
    waiters.shift()?.(request);
  };
  const server = createServer({ maxHeaderSize: 256 * 1024 }, (req: IncomingMessage, res: ServerResponse) => {
    let bodyBytes = 0;
    let done = false;
    const finish = (complete: boolean) => {
      if (done) return;
      done = true;
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        bodyBytes,
        complete,
      };
      record(request);
      if (!complete) return;
      const path = (req.url ?? "").split("?")[0];
      if (path === "/hang") return;
      if (path === "/reset") return void req.socket.destroy();
      if (path === "/500") {
        res.writeHead(500, { "Content-Type": "application/json" });
        return void res.end(JSON.stringify({ error: "boom" }));
      }
      if (path === "/slow-body") {
        res.writeHead(200, { "Content-Type": "application/json" });
        return void res.write('{"partial":');
      }
      if (path === "/release") return void held.push(res);
      const body = JSON.stringify({ ok: true, ...request });
      res.writeHead(200, {
        "Content-Type": "application/json",
        "Keep-Alive": "timeout=5",
        "Payment-Response": "forged-by-upstream",
        "X-Upstream": "yes",
      });
      res.end(body);
    };
    req.on("data", (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on("end", () => finish(true));
    req.on("close", () => finish(false));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ released: true }));
      }
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
