import { request as httpsRequest } from "node:https";
import { networkInterfaces } from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { selfSignedCert } from "../support/selfSignedCert.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream;
let certFile: string;
let keyFile: string;
let cert: Buffer;
const running: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  ({ certFile, keyFile, cert } = await selfSignedCert());
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await upstream.stop();
});

async function start(overrides: Omit<Parameters<typeof gatewayConfig>[0], "upstreamUrl">) {
  const gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url, ...overrides })).listen();
  running.push(gateway);
  return gateway;
}

function httpsGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca: cert }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("TLS", () => {
  it("speaks HTTPS with listen.tls: the offer and the free routes are served over TLS", async () => {
    const gateway = await start({ listen: { host: "127.0.0.1", port: 0, tls: { certFile, keyFile } } });
    expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const priced = await httpsGet(`${gateway.url}/priced`);
    expect(priced.status).toBe(402);
    expect((await httpsGet(`${gateway.url}/free`)).status).toBe(200);
    await expect(fetch(gateway.url.replace("https:", "http:") + "/priced")).rejects.toThrow();
  });

  it("a non-loopback plain-HTTP listener needs listen.tls, a trustProxy or listen.allowPlainHttp", () => {
    expect(() => gatewayConfig({ upstreamUrl: upstream.url, listen: { host: "0.0.0.0", port: 0 } })).toThrow(
      /"listen",\s*"host"[\s\S]*listen\.allowPlainHttp: true/,
    );
  });

  it("behind a trusted proxy, refuses a client the proxy reached over plain HTTP: 403 tls_required, nothing forwarded", async () => {
    const gateway = await start({ listen: { host: "0.0.0.0", port: 0 }, trustProxy: ["127.0.0.1"] });
    const before = upstream.seen.length;
    const behindProxy = { "x-forwarded-for": "203.0.113.5" };
    const response = await fetch(`${gateway.url}/priced`, { headers: behindProxy });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: "tls_required" });
    expect(upstream.seen.length).toBe(before);
    // Free routes are none of the paywall's business.
    expect((await fetch(`${gateway.url}/free`, { headers: behindProxy })).status).toBe(200);
  });

  it("exempts loopback clients from TLS on a non-loopback listener, as x402() does", async () => {
    const gateway = await start({ listen: { host: "0.0.0.0", port: 0 }, trustProxy: ["10.0.0.0/8"] });
    const response = await fetch(`${gateway.url}/priced`);
    expect(response.status).toBe(402);
    expect(response.headers.get("payment-required")).toBeTruthy();
  });

  it("believes X-Forwarded-Proto: https from a trusted proxy only", async () => {
    const trusted = await start({ listen: { host: "0.0.0.0", port: 0 }, trustProxy: ["127.0.0.1"] });
    const viaProxy = await fetch(`${trusted.url}/priced`, { headers: { "x-forwarded-proto": "https" } });
    expect(viaProxy.status).toBe(402);
    // The proxy says its client used plain HTTP: refused, though the proxy itself is on loopback.
    const plainViaProxy = await fetch(`${trusted.url}/priced`, { headers: { "x-forwarded-proto": "http" } });
    expect(plainViaProxy.status).toBe(403);
  });

  // A peer that is not on loopback: this machine's own non-loopback address, when it has one.
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === "IPv4" && !address.internal)?.address;

  it.skipIf(lan === undefined)(
    "ignores X-Forwarded-Proto from an untrusted non-loopback client: 403 tls_required",
    async () => {
      const untrusted = await start({ listen: { host: "0.0.0.0", port: 0 }, trustProxy: ["10.0.0.0/8"] });
      const port = new URL(untrusted.url).port;
      const spoofed = await fetch(`http://${lan}:${port}/priced`, {
        headers: { "x-forwarded-proto": "https" },
      });
      expect(spoofed.status).toBe(403);
      expect(await spoofed.json()).toMatchObject({ error: "tls_required" });
    },
  );

  it.skipIf(lan === undefined)(
    "listen.allowPlainHttp serves priced routes over plain HTTP to non-loopback clients",
    async () => {
      const gateway = await start({ listen: { host: "0.0.0.0", port: 0, allowPlainHttp: true } });
      const port = new URL(gateway.url).port;
      const response = await fetch(`http://${lan}:${port}/priced`);
      expect(response.status).toBe(402);
    },
  );

  it("accepts plain HTTP on a loopback listener (local development)", async () => {
    const gateway = await start({ listen: { host: "127.0.0.1", port: 0 } });
    expect((await fetch(`${gateway.url}/priced`)).status).toBe(402);
  });
});
