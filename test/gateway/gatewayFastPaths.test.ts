import express from "express";
import fc from "fast-check";
import helmet from "helmet";
import { afterAll, describe, expect, it } from "vitest";
import { isNormalized, markNormalized } from "../../src/paywall/request/normalizedRequests.js";
import { normalizePath } from "../../src/pricing/normalizePath.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { precomputeHeaders } from "../../src/gateway/precomputeHeaders.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { gatewayConfig } from "./support/gatewayConfig.js";

const open: Array<RunningGateway | LoopbackServer> = [];
afterAll(async () => {
  for (const server of open) await server.close();
});

const policy = () =>
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    crossOriginResourcePolicy: { policy: "cross-origin" },
  });

async function headersFrom(middleware: express.RequestHandler): Promise<Record<string, string>> {
  const app = express();
  app.disable("x-powered-by");
  app.use(middleware);
  app.get("/", (_req, res) => void res.end("ok"));
  const server = await listenOnLoopback(app);
  open.push(server);
  const response = await fetch(server.url);
  await response.arrayBuffer();
  const headers = Object.fromEntries(response.headers);
  delete headers.date;
  return headers;
}

describe("precomputed security headers", () => {
  it("sets exactly what helmet sets, header for header", async () => {
    const live = await headersFrom(policy());
    expect(live["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");
    expect(await headersFrom(precomputeHeaders(policy()))).toEqual(live);
  });

  it("the gateway sends them on a 402 and on a proxied answer", async () => {
    const upstream = await listenOnLoopback((_req, res) => res.end("{}"));
    open.push(upstream);
    const gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url })).listen();
    open.push(gateway);
    for (const path of ["/priced", "/free"]) {
      const response = await fetch(gateway.url + path);
      await response.arrayBuffer();
      expect(response.headers.get("content-security-policy")).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      expect(response.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("refuses a middleware that does not pass the request on at once", () => {
    expect(() => precomputeHeaders(() => undefined)).toThrow(/synchronously/);
  });
});

describe("the path is normalised once per request", () => {
  it("normalising a normalised path changes nothing, so the gateway's reading is the paywall's", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "B", ".", "..", "", "%41", "%2e", "%7E", "%20", "%c3%a9", "x~y"), {
          maxLength: 8,
        }),
        (segments) => {
          const once = normalizePath(`/${segments.join("/")}`);
          if (!once.ok) return;
          expect(normalizePath(once.path)).toEqual(once);
        },
      ),
    );
  });

  it("a mark holds only while req.url is the marked one", () => {
    const req = { url: "/api/x?y=1" };
    expect(isNormalized(req)).toBe(false);
    markNormalized(req, req.url);
    expect(isNormalized(req)).toBe(true);
    req.url = "/x?y=1";
    expect(isNormalized(req)).toBe(false);
  });

  it("the gateway still prices a path it had to normalise, and frees what is not priced", async () => {
    const upstream = await listenOnLoopback((req, res) => res.end(JSON.stringify({ url: req.url })));
    open.push(upstream);
    const gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url })).listen();
    open.push(gateway);
    const priced = await fetch(`${gateway.url}/a/../%70riced/`);
    expect(priced.status).toBe(402);
    const free = await fetch(`${gateway.url}/free/./x//y`);
    expect(await free.json()).toEqual({ url: "/free/x/y" });
  });
});
