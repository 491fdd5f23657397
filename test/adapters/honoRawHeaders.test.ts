import { getRequestListener } from "@hono/node-server";
import fc from "fast-check";
import { Hono } from "hono";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchRequestFacts } from "../../src/adapters/fetchRequestFacts.js";
import { x402Hono } from "../../src/adapters/hono.js";

/**
 * Under `@hono/node-server` the Fetch facts read a request's headers by the names Node received
 * (`rawHeaders`), asking the lazy `Headers` for each: they must be exactly what iterating the whole
 * `Headers` gives (the app's own view), repeated and odd headers included.
 */
let server: Server;
let port: number;

beforeAll(async () => {
  const app = new Hono<{ Bindings: { incoming: IncomingMessage } }>();
  app.all("*", (c) => {
    const { rawHeaders } = c.env.incoming;
    // By name first: iterating would build the whole Headers, which is what the lazy reading avoids.
    const byName = fetchRequestFacts(c.req.raw, { rawHeaders }).headers;
    const iterated = fetchRequestFacts(c.req.raw, undefined).headers;
    return c.json({ byName, iterated });
  });
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** One request with exactly these header lines, over a raw socket (no client merges or reorders them). */
function send(lines: Array<[string, string]>): Promise<{ byName: unknown; iterated: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    socket.on("data", (chunk) => (reply += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("end", () => {
      const [head = "", body = ""] = reply.split("\r\n\r\n");
      if (!head.startsWith("HTTP/1.1 200")) return reject(new Error(head));
      resolve(JSON.parse(body) as { byName: unknown; iterated: unknown });
    });
    const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join("");
    socket.write(`GET /api/weather HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}Connection: close\r\n\r\n`);
  });
}

describe("the Fetch facts' headers under @hono/node-server, read by the received names", () => {
  it.each<[string, Array<[string, string]>]>([
    ["one payment header", [["Payment-Signature", "eyJhIjoxfQ"]]],
    [
      "a repeated header, joined",
      [
        ["Accept", "application/x402+cbor"],
        ["accept", "application/json"],
      ],
    ],
    [
      "a repeated Content-Type (Node keeps the first)",
      [
        ["Content-Type", "a/b"],
        ["content-type", "c/d"],
      ],
    ],
    [
      "cookies, joined with '; '",
      [
        ["Cookie", "a=1"],
        ["Cookie", "b=2"],
      ],
    ],
    [
      "a repeated Authorization",
      [
        ["Authorization", "x"],
        ["Authorization", "y"],
      ],
    ],
    [
      "mixed case, empty value",
      [
        ["X-Forwarded-For", "1.2.3.4"],
        ["x-EMPTY", ""],
      ],
    ],
    [
      "a name like a prototype key",
      [
        ["__proto__", "x"],
        ["constructor", "y"],
      ],
    ],
    ["values with inner spaces", [["Accept", "text/html ,  application/json"]]],
    [
      "set-cookie on a request",
      [
        ["Set-Cookie", "a=1"],
        ["Set-Cookie", "b=2"],
      ],
    ],
  ])("%s", async (_name, lines) => {
    const { byName, iterated } = await send(lines);
    expect(byName).toEqual(iterated);
  });

  it("generated header lines: the same record either way", async () => {
    const name = fc.constantFrom(
      "accept",
      "Accept",
      "content-type",
      "cookie",
      "authorization",
      "payment-signature",
      "x-forwarded-for",
      "user-agent",
      "x-custom",
      "referer",
    );
    const value = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 8 }), async (lines) => {
        const { byName, iterated } = await send(lines);
        expect(byName).toEqual(iterated);
      }),
      { numRuns: 60 },
    );
  });
});

describe("x402Hono under @hono/node-server, behind a middleware that replaced the request", () => {
  it("reads the replacing request's headers, not only the names Node received", async () => {
    const app = new Hono();
    app.use("/added/*", async (c, next) => {
      const headers = new Headers(c.req.raw.headers);
      headers.set("payment-signature", "!!not base64!!");
      c.req.raw = new Request(c.req.raw, { headers });
      await next();
    });
    app.use(
      x402Hono({
        facilitator: { url: "http://127.0.0.1:9" },
        payTo: "0x2222222222222222222222222222222222222222",
        network: "eip155:84532",
        routes: { "GET /added/a": { price: "$0.01" }, "GET /plain/a": { price: "$0.01" } },
      }),
    );
    app.get("*", (c) => c.text("served"));
    const own = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
    try {
      const plain = await fetch(`${base}/plain/a`);
      expect(plain.status).toBe(402);
      await plain.arrayBuffer();
      // The client sent no payment; the header the middleware added is seen (and refused as malformed).
      const added = await fetch(`${base}/added/a`);
      expect(added.status).toBe(400);
      await added.arrayBuffer();
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });
});
