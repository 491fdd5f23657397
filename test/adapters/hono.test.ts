import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Hono } from "../../src/adapters/hono.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";

/** `x402Hono` in a Hono app with its own routes: through `app.request()`, and served by `@hono/node-server`. */
let facilitator: FacilitatorDouble;
let app: Hono;
let server: ServerType;
let url: string;
const served: string[] = [];
const PRICE = usdcRequirements("10000");

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  app = new Hono();
  app.use(
    x402Hono({
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      // The official @x402/hono README's route table, as it is written there.
      routes: {
        "GET /weather": {
          accepts: { scheme: "exact", price: "$0.01", network: "eip155:84532", payTo: PAY_TO },
          description: "Weather data",
          mimeType: "application/json",
        },
        "GET /fails": { price: "$0.01" },
      },
    }),
  );
  app.get("/weather", (c) => {
    served.push("/weather");
    c.header("Cache-Control", "public, max-age=60");
    return c.json({ report: { weather: "sunny", temperature: 70 } });
  });
  app.get("/fails", (c) => {
    served.push("/fails");
    return c.json({ error: "down" }, 503);
  });
  app.get("/free", (c) => c.text("free"));
  server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
      resolve(started),
    );
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await facilitator?.close();
});

const payment = () => header(evmPayment(PRICE));

describe.each([
  // No server, no socket: the client is unknown, so only HTTPS passes `requireTls: "except-loopback"`.
  ["app.request()", (path: string, init?: RequestInit) => app.request(`https://api.example${path}`, init)],
  ["@hono/node-server", (path: string, init?: RequestInit) => fetch(`${url}${path}`, init)],
] as const)("x402Hono through %s", (_name, send) => {
  it("unpaid: 402 with the offer, the route not run", async () => {
    const before = served.length;
    const response = await send("/weather");
    expect(response.status).toBe(402);
    const offer = decodeBase64Json(response.headers.get("payment-required") ?? "") as {
      resource: { description: string };
      accepts: Array<{ amount: string }>;
    };
    expect(offer.resource.description).toBe("Weather data");
    expect(offer.accepts[0]?.amount).toBe("10000");
    expect(served.length).toBe(before);
  });

  it("paid: the route's JSON, settled once, with the receipt; its public caching made private", async () => {
    const settled = facilitator.count("settle");
    const response = await send("/weather", { headers: { "payment-signature": payment() } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ report: { weather: "sunny", temperature: 70 } });
    expect(response.headers.get("payment-response")).not.toBeNull();
    expect(response.headers.get("cache-control")).toBe("private");
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(facilitator.count("settle") - settled).toBe(1);
  });

  it("a route answering 503 is passed on and nothing is settled", async () => {
    const settled = facilitator.count("settle");
    const response = await send("/fails", { headers: { "payment-signature": payment() } });
    expect(response.status).toBe(503);
    expect(response.headers.get("payment-response")).toBeNull();
    expect(facilitator.count("settle")).toBe(settled);
  });

  it("a free route is served as the app answers it", async () => {
    if (_name === "app.request()") {
      // Plain HTTP from a client nobody can name is not taken for loopback: refused, not offered.
      const refused = await app.request("http://127.0.0.1/weather");
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toBe("tls_required");
    }
    const response = await send("/free");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("free");
  });
});
