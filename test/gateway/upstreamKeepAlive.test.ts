import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "./support/gatewayConfig.js";

/** An upstream that counts its connections: how many ever opened, and the most open at once. */
let upstream: Server;
let upstreamUrl: string;
const sockets = new Set<Socket>();
let opened = 0;
let mostOpen = 0;
let lastHeaders: IncomingHttpHeaders = {};
const running: RunningGateway[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    lastHeaders = req.headers;
    if (req.url === "/hang") return;
    const delay = req.url === "/slow" ? 50 : 0;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    }, delay);
  });
  upstream.on("connection", (socket: Socket) => {
    opened++;
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, sockets.size);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
  upstream.closeAllConnections();
  opened = 0;
  mostOpen = 0;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

async function start(upstreamSettings: Record<string, unknown> = {}): Promise<RunningGateway> {
  const gateway = await createGateway(
    gatewayConfig({ upstreamUrl: "", upstreams: [{ url: upstreamUrl, ...upstreamSettings }] }),
  ).listen();
  running.push(gateway);
  return gateway;
}

describe("keep-alive connections to the upstream", () => {
  it("reuses one upstream connection for sequential requests, and never asks the upstream to close", async () => {
    const gateway = await start();
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${gateway.url}/free/${i}`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(opened).toBe(1);
    expect(lastHeaders.connection).not.toBe("close");
  });

  it("opens no more than maxSockets connections, queueing the rest", async () => {
    const gateway = await start({ maxSockets: 2 });
    const statuses = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const response = await fetch(`${gateway.url}/slow`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(mostOpen).toBeLessThanOrEqual(2);
  });

  it("still times out a silent upstream on a reused connection (504 upstream_timeout)", async () => {
    const gateway = await start({ timeoutMs: 200 });
    await (await fetch(`${gateway.url}/free/warm`)).arrayBuffer();
    const hang = await fetch(`${gateway.url}/hang`);
    expect(hang.status).toBe(504);
    expect(await hang.json()).toMatchObject({ error: "upstream_timeout" });
    const after = await fetch(`${gateway.url}/free/after`);
    expect(after.status).toBe(200);
  });
});
