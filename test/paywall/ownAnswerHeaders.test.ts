import { describe, expect, it } from "vitest";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import express from "express";
import request from "supertest";
import { x402, x402Node } from "../../src/index.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { PAY_TO } from "../support/payments.js";

// The flow writes its own answers (the 402, its refusals) in one `writeHead`: what a middleware set before
// must stay, a header of the same name is the paywall's (whatever its case), and `Vary` is merged, not lost.

const options = {
  facilitator: { url: "http://127.0.0.1:9" },
  payTo: PAY_TO,
  network: "eip155:84532",
  routes: { "GET /api/apy": { price: "$0.001", description: "Current APY" } },
} as const;

/** What a CORS or caching middleware puts on every response before the paywall runs. */
function setEarlier(res: ServerResponse): void {
  res.setHeader("Access-Control-Allow-Origin", "https://app.example");
  res.setHeader("vary", "Origin");
  res.setHeader("cache-control", "public, max-age=60");
}

const apps: Array<{ name: string; app: () => RequestListener }> = [
  {
    name: "x402()",
    app: () => {
      const app = express();
      app.use((_req, res, next) => {
        setEarlier(res);
        next();
      });
      app.use(x402(options));
      app.get("/free", (_req, res) => res.json({ free: true }));
      return app as unknown as RequestListener;
    },
  },
  {
    name: "x402Node()",
    app: () => {
      const paywall = x402Node(options).wrap((_req: IncomingMessage, res: ServerResponse) => {
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ free: true }));
      });
      return (req, res) => {
        setEarlier(res);
        paywall(req, res);
      };
    },
  },
];

describe.each(apps)("$name's own answers keep what was set before them", ({ app }) => {
  it("a 402 keeps earlier headers, replaces Cache-Control, and adds Accept to Vary", async () => {
    const res = await request(app()).get("/api/apy");
    expect(res.status).toBe(402);
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers.vary).toBe("Origin, Accept");
    const offer = decodeBase64Json(res.headers["payment-required"] as string) as { accepts: unknown[] };
    expect(offer.accepts).toHaveLength(1);
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.text)));
    expect(JSON.parse(res.text)).toMatchObject({ x402Version: 2, error: "payment_required" });
  });

  it("a refusal (400) keeps them too, and is sent once with its own length", async () => {
    const res = await request(app()).get("/api/apy").set("PAYMENT-SIGNATURE", "%%%not-base64%%%");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers.vary).toBe("Origin, Accept");
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.text)));
    expect(JSON.parse(res.text)).toHaveProperty("error");
  });

  it("a 405 for an unnamed method carries its Allow", async () => {
    const res = await request(app()).merge("/api/apy");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toMatch(/GET/);
    expect(res.headers.vary).toBe("Origin, Accept");
  });
});
