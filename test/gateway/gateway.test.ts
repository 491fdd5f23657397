import { request as httpRequest } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { x402Node } from "../../src/adapters/node.js";
import { GATEWAY_DEFAULTS } from "../../src/config/gatewaySectionSchemas.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../../src/protocol/cbor/profile.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { pino, type DestinationStream, type Logger } from "pino";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { closedPort, startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream & { release(): void };
let facilitator: Server;
let facilitatorUrl: string;
let facilitatorProbes = 0;
const running: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  facilitator = createServer((req, res) => {
    // Readiness probes only (the paywall's own /supported asks for JSON).
    if (req.url?.endsWith("/supported") && req.headers.accept !== "application/json") facilitatorProbes++;
    res.writeHead(req.url === "/supported" ? 200 : 404, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }],
        extensions: [],
        signers: {},
      }),
    );
  });
  await new Promise<void>((resolve) => facilitator.listen(0, "127.0.0.1", resolve));
  facilitatorUrl = `http://127.0.0.1:${(facilitator.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await upstream.stop();
  await new Promise((resolve) => facilitator.close(resolve));
});

async function start(
  overrides: Parameters<typeof gatewayConfig>[0] = { upstreamUrl: "" },
  lines: string[] = [],
  makeLogger: (destination: DestinationStream) => Logger = (destination) =>
    createGatewayLogger("info", destination),
) {
  const config = gatewayConfig({
    facilitatorUrl,
    ...overrides,
    upstreamUrl: overrides.upstreamUrl || upstream.url,
  });
  const logger = makeLogger({ write: (line: string) => void lines.push(line) });
  const gateway = createGateway(config, { logger });
  const server = await gateway.listen();
  running.push(server);
  return server;
}

/** A raw request, so that hop-by-hop headers and chunked bodies go out exactly as written. */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: AsyncIterable<Buffer> | Buffer },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    const body = options.body;
    if (body === undefined) return void req.end();
    if (Buffer.isBuffer(body)) return void req.end(body);
    void (async () => {
      try {
        for await (const chunk of body) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
        req.end();
      } catch {
        req.destroy();
      }
    })();
  });
}

describe("standalone gateway: proxying", () => {
  it("a path no upstream serves is 404 not_found in the catalogue's body, and nothing is forwarded", async () => {
    const gateway = await start({ upstreamUrl: "", upstreams: [{ prefix: "/api", url: upstream.url }] });
    const seen = upstream.seen.length;
    const response = await fetch(`${gateway.url}/elsewhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "not_found",
      message: "no upstream serves /elsewhere",
      details: {},
    });
    expect(upstream.seen.length).toBe(seen);
  });

  it("forwards a free route on its normalised path with payment and hop-by-hop headers removed", async () => {
    const gateway = await start();
    const next = upstream.nextRequest();
    const response = await rawRequest(`${gateway.url}/free/./a//b/%7Euser?x=1`, {
      headers: {
        "payment-signature": "eyJzZWNyZXQiOnRydWV9",
        "sign-in-with-x": "proof",
        connection: "x-private, keep-alive",
        "x-private": "hop",
        "x-forwarded-for": "6.6.6.6",
        "x-forwarded-proto": "https",
        "keep-alive": "timeout=5",
      },
    });
    expect(response.status).toBe(200);
    const seen = await next;
    expect(seen.url).toBe("/free/a/b/~user?x=1");
    expect(seen.headers["payment-signature"]).toBeUndefined();
    expect(seen.headers["sign-in-with-x"]).toBeUndefined();
    expect(seen.headers["x-private"]).toBeUndefined();
    expect(seen.headers["keep-alive"]).toBeUndefined();
    // Not from a trusted proxy: the client's own X-Forwarded-* are replaced, not extended.
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen.headers["x-forwarded-proto"]).toBe("http");
    expect(seen.headers["x-forwarded-host"]).toBe(new URL(gateway.url).host);
    // The upstream's own payment and hop-by-hop headers do not reach the client.
    expect(response.headers["x-upstream"]).toBe("yes");
    expect(response.headers["payment-response"]).toBeUndefined();
    expect(response.headers["keep-alive"]).toBeUndefined();
  });

  it("believes X-Forwarded-* only from trusted proxies", async () => {
    const gateway = await start({ upstreamUrl: "", trustProxy: ["127.0.0.1"] });
    const next = upstream.nextRequest();
    await rawRequest(`${gateway.url}/free`, {
      headers: {
        "x-forwarded-for": "203.0.113.7",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "api.example.com",
      },
    });
    const seen = await next;
    expect(seen.headers["x-forwarded-for"]).toBe("203.0.113.7, 127.0.0.1");
    expect(seen.headers["x-forwarded-proto"]).toBe("https");
    expect(seen.headers["x-forwarded-host"]).toBe("api.example.com");
  });

  it("answers a priced route with 402 without forwarding it", async () => {
    const gateway = await start();
    const before = upstream.seen.length;
    const response = await fetch(`${gateway.url}/priced`);
    expect(response.status).toBe(402);
    expect(response.headers.get("payment-required")).toBeTruthy();
    expect(await response.json()).toMatchObject({ error: "payment_required", x402Version: 2 });
    expect(upstream.seen.length).toBe(before);
  });

  it("accepts request heads up to limits.maxHeaderBytes (room for the largest CBOR payment) and answers 431 past it", async () => {
    const gateway = await start();
    const largestPayment = "a".repeat(MAX_CBOR_PAYMENT_HEADER_CHARS);
    const big = await rawRequest(`${gateway.url}/free`, { headers: { "payment-signature": largestPayment } });
    expect(big.status).toBe(200);
    const tooBig = await rawRequest(`${gateway.url}/free`, {
      // Just past the limit (a head far past it may be cut while it is still being sent).
      headers: {
        "payment-signature": largestPayment,
        "x-big": "a".repeat(GATEWAY_DEFAULTS.maxHeaderBytes - MAX_CBOR_PAYMENT_HEADER_CHARS + 4096),
      },
    });
    expect(tooBig.status).toBe(431);
  });

  it("refuses a path with an ambiguous encoding", async () => {
    const gateway = await start();
    const response = await fetch(`${gateway.url}/free/a%2Fb`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "invalid_path",
      details: { reason: "encoded_slash" },
    });
  });

  it("sends API-fit security headers and no x-powered-by", async () => {
    const gateway = await start();
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.headers.get("x-powered-by")).toBeNull();
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none';frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
  });
});

describe("standalone gateway: Redis ledger", () => {
  it("runs with ledger: { type: redis } and closes its connection on shutdown", async () => {
    const config = gatewayConfig({
      upstreamUrl: upstream.url,
      facilitatorUrl,
      ledger: {
        type: "redis",
        url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        keyPrefix: "test:gw:",
      },
    });
    let closed = 0;
    const gateway = createGateway(config, {
      logger: createGatewayLogger("silent"),
      paywall: (options) => {
        const middleware = x402Node(options);
        const close = middleware.close;
        return Object.assign(middleware, { close: () => close().then(() => void closed++) });
      },
    });
    const running = await gateway.listen();
    expect((await fetch(`${running.url}/priced`)).status).toBe(402);
    await running.close();
    expect(closed).toBe(1);
  });
});

describe("standalone gateway: limits and upstream faults", () => {
  it("refuses a declared body over maxBodyBytes with 413 before forwarding", async () => {
    const gateway = await start({ upstreamUrl: "", limits: { maxBodyBytes: 1000 } });
    const before = upstream.seen.length;
    const response = await rawRequest(`${gateway.url}/free`, { method: "POST", body: Buffer.alloc(1001) });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: "payload_too_large", details: { limit: 1000 } });
    expect(upstream.seen.length).toBe(before);
  });

  it("cuts a chunked body at maxBodyBytes: 413, and the upstream never gets it whole", async () => {
    const gateway = await start({ upstreamUrl: "", limits: { maxBodyBytes: 1000 } });
    async function* chunks() {
      for (let i = 0; i < 50; i++) yield Buffer.alloc(100);
    }
    const response = await rawRequest(`${gateway.url}/chunked-limit`, { method: "POST", body: chunks() });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: "payload_too_large" });
    expect(upstream.seen.filter((seen) => seen.url === "/chunked-limit" && seen.complete)).toEqual([]);
  });

  it("streams a body under the limit", async () => {
    const gateway = await start({ upstreamUrl: "", limits: { maxBodyBytes: 10_000 } });
    async function* chunks() {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(100);
    }
    const response = await rawRequest(`${gateway.url}/free`, { method: "POST", body: chunks() });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ bodyBytes: 1000, complete: true });
  });

  it("answers Expect: 100-continue itself and forwards the body without it", async () => {
    const gateway = await start();
    const next = upstream.nextRequest();
    const response = await rawRequest(`${gateway.url}/free`, {
      method: "POST",
      headers: { expect: "100-continue", "content-length": "5" },
      body: Buffer.from("hello"),
    });
    expect(response.status).toBe(200);
    const seen = await next;
    expect(seen.headers.expect).toBeUndefined();
    expect(seen.bodyBytes).toBe(5);
  });

  it("maps an unreachable upstream to 502 upstream_unavailable", async () => {
    const gateway = await start({ upstreamUrl: `http://127.0.0.1:${await closedPort()}` });
    const response = await fetch(`${gateway.url}/free`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      error: "upstream_unavailable",
      details: { reason: "ECONNREFUSED" },
    });
  });

  it("maps a reset to 502 and a silent upstream to 504 upstream_timeout", async () => {
    const gateway = await start({ upstreamUrl: "", upstreams: [{ url: upstream.url, timeoutMs: 200 }] });
    const reset = await fetch(`${gateway.url}/reset`);
    expect(reset.status).toBe(502);
    expect(await reset.json()).toMatchObject({ error: "upstream_unavailable" });
    const hang = await fetch(`${gateway.url}/hang`);
    expect(hang.status).toBe(504);
    expect(await hang.json()).toMatchObject({ error: "upstream_timeout" });
  });

  it("cuts the client connection when the upstream stalls mid-body", async () => {
    const gateway = await start({ upstreamUrl: "", upstreams: [{ url: upstream.url, timeoutMs: 200 }] });
    await expect(rawRequest(`${gateway.url}/slow-body`, {})).rejects.toThrow();
  });
});

describe("standalone gateway: health, readiness, metrics, logs", () => {
  it("serves /healthz, and /readyz from the facilitator's /supported and the upstream", async () => {
    const gateway = await start();
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });

    const lines: string[] = [];
    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    const down = await start({ upstreamUrl: downUrl }, lines);
    const notReady = await fetch(`${down.url}/readyz`);
    expect(notReady.status).toBe(503);
    // Statuses by name and a coarse reason only: no URL, credential or error text for anyone who asks.
    expect(await notReady.json()).toEqual({
      ready: false,
      draining: false,
      checks: [
        { name: "facilitator", ok: true },
        { name: "upstream /", ok: false, reason: "unreachable" },
      ],
    });
    const logged = lines.find((line) => line.includes('"not ready"'));
    expect(logged).toContain(downUrl);
    expect(logged).toContain("ECONNREFUSED");
  });

  it("/readyz names why a check fails (status, timeout) and never the URL it probed", async () => {
    const cases = [
      { healthPath: "/500", connectTimeoutMs: 2_000, reason: "status_500" },
      { healthPath: "/hang", connectTimeoutMs: 150, reason: "timeout" },
    ];
    for (const { healthPath, connectTimeoutMs, reason } of cases) {
      const gateway = await start({
        upstreamUrl: "",
        facilitator: { url: `${facilitatorUrl}/secret-token` },
        upstreams: [{ url: upstream.url, healthPath, connectTimeoutMs }],
      });
      const answer = await fetch(`${gateway.url}/readyz`);
      expect(answer.status).toBe(503);
      const body = (await answer.json()) as { checks: Array<{ name: string; ok: boolean; reason?: string }> };
      expect(body.checks).toEqual([
        { name: "facilitator", ok: false, reason: "status_404" },
        { name: "upstream /", ok: false, reason },
      ]);
      expect(JSON.stringify(body)).not.toMatch(/secret|127\.0\.0\.1|http/);
    }
  });

  it("/readyz probes its dependencies at most once per cache window, however often it is asked", async () => {
    const gateway = await start({ upstreamUrl: "", facilitator: { url: `${facilitatorUrl}/secret-token` } });
    const before = facilitatorProbes;
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${gateway.url}/readyz`)));
    for (const answer of answers) expect(JSON.stringify(await answer.json())).not.toContain("secret");
    expect(facilitatorProbes - before).toBe(1);
  });

  it("counts requests by route and outcome in Prometheus text", async () => {
    const gateway = await start();
    await fetch(`${gateway.url}/priced`);
    await fetch(`${gateway.url}/free`);
    const text = await (await fetch(gateway.metricsUrl!)).text();
    expect(text).toContain('x402_gateway_requests_total{route="GET /priced",outcome="offered",code="402"} 1');
    expect(text).toMatch(/x402_gateway_requests_total\{route="unpriced",outcome="free",code="200"\} 1/);
    expect(text).toContain("x402_gateway_settle_duration_seconds");
    // Node's default process metrics, in the gateway's own registry.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it.each([
    ["the gateway's own logger", undefined],
    ["a logger without redaction", (destination: DestinationStream) => pino({ level: "info" }, destination)],
    [
      "a child of the gateway's logger, as a worker's",
      (destination: DestinationStream) => createGatewayLogger("info", destination).child({ worker: 1 }),
    ],
  ])("logs one JSON line per request with the payment headers censored (%s)", async (_name, makeLogger) => {
    const lines: string[] = [];
    const gateway = await start({ upstreamUrl: "" }, lines, makeLogger);
    const signature = Buffer.from(JSON.stringify({ x402Version: 2, secret: "x".repeat(40) })).toString(
      "base64",
    );
    const token = "Bearer abcdefghijklmnopqrstuvwxyz0123456789";
    await fetch(`${gateway.url}/free?token=abc`, {
      headers: { "payment-signature": signature, authorization: token, "sign-in-with-x": signature },
    });
    const entries = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.msg === "request");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: "GET", path: "/free", status: 200, outcome: "free" });
    expect(typeof entries[0]?.latencyMs).toBe("number");
    expect(lines.join("\n")).not.toContain(signature);
    expect(lines.join("\n")).not.toContain("abcdefgh");
    const headers = entries[0]?.headers as Record<string, string>;
    expect(headers["payment-signature"]).toMatch(/^eyJ4NDAy…\[redacted \d+ chars\]$/);
    expect(headers["sign-in-with-x"]).toMatch(/^eyJ4NDAy…\[redacted \d+ chars\]$/);
    expect(headers.authorization).toBe(`Bearer …[redacted ${token.length} chars]`);
  });

  it("keeps redacting headers on the gateway logger's other lines", () => {
    const lines: string[] = [];
    const logger = createGatewayLogger("info", { write: (line: string) => void lines.push(line) });
    logger.info({ req: { headers: { "payment-signature": "eyJ4NDAyVmVyc2lvbiI6Mn0=" } } }, "seen");
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      req: { headers: { "payment-signature": "eyJ4NDAy…[redacted 24 chars]" } },
    });
  });
});
