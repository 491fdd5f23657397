import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import express, { type Express } from "express";
import { expressRequestFacts } from "../../src/adapters/expressRequestFacts.js";
import request from "supertest";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { x402 } from "../../src/index.js";
import { PAY_TO } from "../support/payments.js";

// x402() reads the client's address and protocol as Express does under the app's `trust proxy`; with
// Express's default (no proxy trusted) it reads the socket itself (cheaper than Express's proxy-addr pass),
// which must give Express's own answers.
const paywall = () =>
  x402({
    facilitator: { url: "http://127.0.0.1:9" },
    payTo: PAY_TO,
    network: "eip155:84532",
    routes: { "GET /x": { price: "$1" } },
  });

async function offeredUrl(app: Express, path: string, headers: Record<string, string>) {
  let test = request(app).get(path);
  for (const [name, value] of Object.entries(headers)) test = test.set(name, value);
  const res = await test;
  const offer = res.headers["payment-required"] as string | undefined;
  const url = offer && (decodeBase64Json(offer) as { resource?: { url?: string } }).resource?.url;
  return { status: res.status, url, body: res.body as { error?: string } };
}

const forwarded = {
  "X-Forwarded-For": "203.0.113.5",
  "X-Forwarded-Proto": "https",
  "X-Forwarded-Host": "api.example.com",
};

/** The request's reading, read through a call (so the compiler does not narrow it from before the request). */
const readingOf = <T>(seen: { last?: T }): T | undefined => seen.last;

describe("x402() reads the peer as Express's trust proxy says", () => {
  it("trusting no proxy (Express's default): forwarded headers change nothing, loopback is loopback", async () => {
    const app = express();
    app.use(paywall());
    const answer = await offeredUrl(app, "/x", forwarded);
    expect(answer.status).toBe(402);
    expect(answer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/x$/);
  });

  it("trusting loopback: the proxy's X-Forwarded-For is the client (remote: TLS required) and its protocol counts", async () => {
    const app = express();
    app.set("trust proxy", "loopback");
    app.use(paywall());
    const remote = await offeredUrl(app, "/x", { "X-Forwarded-For": "203.0.113.5" });
    expect(remote.status).toBe(403);
    expect(remote.body.error).toBe("tls_required");
    const secure = await offeredUrl(app, "/x", { "X-Forwarded-Proto": "https" });
    expect(secure.status).toBe(402);
    expect(secure.url).toMatch(/^https:\/\//);
  });

  it("a sub-app mounted under an app that trusts a proxy inherits the trust", async () => {
    const parent = express();
    parent.set("trust proxy", true);
    const child = express();
    child.use(paywall());
    parent.use("/api", child);
    const secure = await offeredUrl(parent, "/api/x", { "X-Forwarded-Proto": "https" });
    expect(secure.status).toBe(402);
    expect(secure.url).toMatch(/^https:\/\/.*\/api\/x$/);
    const remote = await offeredUrl(parent, "/api/x", { "X-Forwarded-For": "203.0.113.5" });
    expect(remote.body.error).toBe("tls_required");
  });

  it("`trust proxy` 0 (a number, not false) still goes through Express: nothing trusted", async () => {
    const app = express();
    app.set("trust proxy", 0);
    app.use(paywall());
    const answer = await offeredUrl(app, "/x", forwarded);
    expect(answer.status).toBe(402);
    expect(answer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/x$/);
  });

  it("reads what Express reads (req.secure, req.protocol, req.ip) for any trust proxy setting and forwarded headers", async () => {
    const app = express();
    type Reading = { secure: boolean; protocol: string; ip: string };
    const seen: { last?: { ours: Reading; express: Reading } } = {};
    app.use((req, res) => {
      const facts = expressRequestFacts(req);
      seen.last = {
        ours: { secure: facts.secure, protocol: facts.protocol, ip: facts.clientAddress },
        express: {
          secure: req.secure,
          protocol: req.protocol === "https" ? "https" : "http",
          ip: req.ip ?? req.socket.remoteAddress ?? "",
        },
      };
      res.end();
    });
    const server = createServer(app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const settings = [false, true, "loopback", "uniquelocal", 0, 1, 2, "127.0.0.1", "10.0.0.0/8"];
    const address = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.constantFrom("127.0.0.1", "::1", "10.1.2.3", "unknown"),
    );
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...settings),
          fc.option(fc.array(address, { minLength: 1, maxLength: 4 }), { nil: undefined }),
          fc.option(fc.constantFrom("https", "http", "HTTPS", "ftp", "https, http", "http,https", ""), {
            nil: undefined,
          }),
          async (trust, chain, proto) => {
            app.set("trust proxy", trust);
            const headers: Record<string, string> = {};
            if (chain !== undefined) headers["x-forwarded-for"] = chain.join(", ");
            if (proto !== undefined) headers["x-forwarded-proto"] = proto;
            delete seen.last;
            await fetch(url, { headers });
            const reading = readingOf(seen);
            expect(reading?.ours).toBeDefined();
            expect(reading?.ours).toEqual(reading?.express);
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      server.close();
    }
  });
});
