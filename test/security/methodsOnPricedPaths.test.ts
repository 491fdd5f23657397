import type { IncomingMessage, ServerResponse } from "node:http";
import { connect } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402 } from "../../src/adapters/express.js";
import { x402Node } from "../../src/adapters/node.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { listenOnLoopback } from "../support/listenOnLoopback.js";
import { bridgedListener } from "../support/fetchBridge.js";
import { PAY_TO } from "../support/payments.js";
import { rawHttp } from "./support/rawHttp.js";

/** Two priced methods on `/priced`, and a route that names an extension method. */
const ROUTES = {
  "GET /priced": { price: "$0.01" },
  "POST /priced": { price: "$0.01" },
  "PURGE /cache": { price: "$0.002" },
};
const ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

let upstream: TestUpstream;
let gateway: RunningGateway;
const targets: Array<{ name: string; url: string; close(): Promise<void> }> = [];

beforeAll(async () => {
  // Answers 200 to any method on any path: a handler that ignores the method (Go net/http, many Node apps).
  upstream = await startUpstream();
  gateway = await createGateway(
    gatewayConfig({
      upstreamUrl: upstream.url,
      routes: ROUTES,
      cors: { allowedOrigins: ["https://app.example"] },
    }),
  ).listen();
  const options = {
    facilitator: { url: "http://127.0.0.1:9" },
    payTo: PAY_TO,
    network: "eip155:84532",
    routes: ROUTES,
  };
  const toUpstream = (_req: IncomingMessage, res: ServerResponse) => {
    upstreamHits++;
    res.statusCode = 200;
    res.end("served");
  };
  const viaExpress = await listenOnLoopback(express().use(x402(options)).use(toUpstream));
  const viaNode = await listenOnLoopback(x402Node(options).wrap(toUpstream));
  for (const kind of ["x402Fetch()", "x402Hono()", "x402Fastify"] as const) {
    const server = await listenOnLoopback(bridgedListener(kind, options, toUpstream));
    targets.push({ name: kind, url: server.url, close: () => server.close() });
  }
  targets.push(
    { name: "gateway", url: gateway.url, close: () => gateway.close() },
    { name: "x402()", url: viaExpress.url, close: () => viaExpress.close() },
    { name: "x402Node()", url: viaNode.url, close: () => viaNode.close() },
  );
});

afterAll(async () => {
  await Promise.all(targets.map((target) => target.close()));
  await upstream?.stop();
});

let upstreamHits = 0;
const hits = () => upstream.seen.length + upstreamHits;

describe.each(["gateway", "x402()", "x402Node()", "x402Fetch()", "x402Hono()", "x402Fastify"])(
  "methods on priced paths through %s (issue 20, item 10)",
  (name) => {
    const url = () => targets.find((target) => target.name === name)?.url as string;

    it.each(["TRACE", "PURGE", "PROPFIND", "LOCK", "QUERY", "MKCOL"])(
      "%s on a priced path: 405 with Allow, never served",
      async (method) => {
        const before = hits();
        const response = await rawHttp(url(), { method, target: "/priced" });
        expect(response.status).toBe(405);
        expect(response.headers.allow).toBe(ALLOW);
        expect(JSON.parse(response.body)).toMatchObject({ error: "method_not_allowed" });
        expect(hits()).toBe(before);
      },
    );

    it("an extension method on a free path passes", async () => {
      const before = hits();
      const response = await rawHttp(url(), { method: "PURGE", target: "/free" });
      expect(response.status).toBe(200);
      expect(hits()).toBe(before + 1);
    });

    it("an extension method a route names is priced (402), not refused", async () => {
      const before = hits();
      const response = await rawHttp(url(), { method: "PURGE", target: "/cache" });
      expect(response.status).toBe(402);
      expect(hits()).toBe(before);
      // Another extension method on that path: the route's method is in Allow.
      const other = await rawHttp(url(), { method: "PROPFIND", target: "/cache" });
      expect(other.status).toBe(405);
      expect(other.headers.allow).toBe(`${ALLOW}, PURGE`);
    });
  },
);

describe("OPTIONS and CONNECT at the gateway (issue 20, item 10)", () => {
  it("a plain OPTIONS on a priced path is answered at the gateway (204, Allow), never forwarded", async () => {
    const before = upstream.seen.length;
    const response = await rawHttp(gateway.url, { method: "OPTIONS", target: "/priced" });
    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe(ALLOW);
    expect(upstream.seen.length).toBe(before);
  });

  it("a preflight from an origin not allowed, on a priced path: 204 without CORS headers, never forwarded", async () => {
    const before = upstream.seen.length;
    const response = await rawHttp(gateway.url, {
      method: "OPTIONS",
      target: "/priced",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    expect(response.status).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    expect(upstream.seen.length).toBe(before);
  });

  it("a preflight from an allowed origin gets the CORS answer; OPTIONS on a free path is forwarded", async () => {
    const before = upstream.seen.length;
    const preflight = await rawHttp(gateway.url, {
      method: "OPTIONS",
      target: "/priced",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://app.example");
    const free = await rawHttp(gateway.url, { method: "OPTIONS", target: "/free" });
    expect(free.status).toBe(200);
    expect(upstream.seen.length).toBe(before + 1);
  });

  it("CONNECT is never routed: the connection is closed, nothing forwarded", async () => {
    const before = upstream.seen.length;
    const { hostname, port } = new URL(gateway.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname);
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
      socket.on("error", () => resolve(text));
      socket.on("close", () => resolve(text));
      socket.write("CONNECT /priced HTTP/1.1\r\nHost: gateway\r\n\r\n");
    });
    expect(answer).not.toMatch(/^HTTP\/1\.1 2/);
    expect(upstream.seen.length).toBe(before);
  });
});
