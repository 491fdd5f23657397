import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { x402Fetch } from "../../src/adapters/fetch.js";
import { x402Hono } from "../../src/adapters/hono.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";

// The route tables of the official @x402/hono and @x402/next READMEs (x402-foundation/x402, typescript/packages/
// http/{hono,next}/README.md), copied as data. Only the placeholders are filled in: "0xYourEvmAddress" and
// "YourSolanaAddress" are not addresses.
const evm = "0x2222222222222222222222222222222222222222";
const svm = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const solanaDevnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

/** @x402/hono README, "Route Configuration". */
const honoRouteConfiguration = {
  "GET /api/protected": {
    accepts: [
      { scheme: "exact", price: "$0.10", network: "eip155:84532", payTo: evm, maxTimeoutSeconds: 60 },
      { scheme: "exact", price: "$0.10", network: solanaDevnet, payTo: svm, maxTimeoutSeconds: 60 },
    ],
    description: "Premium API access",
  },
};

/** @x402/next README, "Dynamic routes": keyed by the route's path pattern. */
const nextDynamicRoutes = {
  "/api/users/[id]": {
    accepts: [
      { scheme: "exact", price: "$0.01", network: "eip155:84532", payTo: evm },
      { scheme: "exact", price: "$0.01", network: solanaDevnet, payTo: svm },
    ],
    description: "Access to user API",
  },
};

/** The facilitator's fee payer on Solana devnet, as its /supported lists it (extra.feePayer). */
const feePayer = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";

/** The same tables with only their EVM options. */
function evmOnly<T extends Record<string, { accepts: Array<{ network: string }> }>>(table: T): T {
  return Object.fromEntries(
    Object.entries(table).map(([key, route]) => [
      key,
      { ...route, accepts: route.accepts.filter(({ network }) => network.startsWith("eip155:")) },
    ]),
  ) as T;
}

let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  facilitator.kinds.push({
    x402Version: 2,
    scheme: "exact",
    network: solanaDevnet,
    extra: { feePayer },
  } as never);
});
afterAll(async () => facilitator.close());

const offerOf = (response: Response) =>
  decodeBase64Json(response.headers.get("payment-required") ?? "") as {
    resource: { url: string; description: string };
    accepts: Array<{
      amount: string;
      network: string;
      maxTimeoutSeconds: number;
      asset: string;
      extra?: unknown;
    }>;
  };

describe("the official @x402/hono README route table under x402Hono()", () => {
  it("verbatim: both options offered, Solana's in devnet USDC with the facilitator's fee payer", async () => {
    const app = new Hono();
    app.use(x402Hono({ facilitator: { url: facilitator.url }, routes: honoRouteConfiguration }));
    app.get("/api/protected", (c) => c.json({ ok: true }));
    const response = await app.request("https://api.example/api/protected");
    expect(response.status).toBe(402);
    expect(offerOf(response).accepts[1]).toEqual({
      scheme: "exact",
      network: solanaDevnet,
      amount: "100000",
      asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      payTo: svm,
      maxTimeoutSeconds: 60,
      extra: { feePayer },
    });
  });

  it("a facilitator whose /supported names no Solana fee payer: 502 facilitator_error, no offer", async () => {
    const bare = await startFacilitatorDouble();
    try {
      const app = new Hono();
      app.use(x402Hono({ facilitator: { url: bare.url }, routes: honoRouteConfiguration }));
      app.get("/api/protected", (c) => c.json({ ok: true }));
      const response = await app.request("https://api.example/api/protected");
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(response.headers.get("payment-required")).toBeNull();
      expect(JSON.stringify(await response.json())).toMatch(/facilitator_error/);
    } finally {
      await bare.close();
    }
  });

  it("its EVM option offered as printed: price, network, timeout and description", async () => {
    const app = new Hono();
    app.use(x402Hono({ facilitator: { url: facilitator.url }, routes: evmOnly(honoRouteConfiguration) }));
    app.get("/api/protected", (c) => c.json({ ok: true }));
    const response = await app.request("https://api.example/api/protected");
    expect(response.status).toBe(402);
    const offer = offerOf(response);
    expect(offer.resource.description).toBe("Premium API access");
    expect(offer.accepts).toEqual([
      expect.objectContaining({ amount: "100000", network: "eip155:84532", maxTimeoutSeconds: 60 }),
    ]);
  });
});

describe("the official @x402/next README dynamic route table under x402Fetch()", () => {
  it("verbatim: both options offered, Solana's with the facilitator's fee payer", async () => {
    const paywall = x402Fetch({ facilitator: { url: facilitator.url }, routes: nextDynamicRoutes });
    const response = await paywall(new Request("https://app.example/api/users/7"), async () =>
      Response.json({ user: 7 }),
    );
    expect(response.status).toBe(402);
    expect(offerOf(response).accepts.map(({ network, extra }) => ({ network, extra }))).toEqual([
      { network: "eip155:84532", extra: expect.anything() },
      { network: solanaDevnet, extra: { feePayer } },
    ]);
  });

  it("its EVM option prices every /api/users/[id], any method, and nothing else", async () => {
    const paywall = x402Fetch({
      facilitator: { url: facilitator.url },
      publicUrl: "https://app.example",
      routes: evmOnly(nextDynamicRoutes),
    });
    const next = async () => Response.json({ user: 7 });
    const GET = (path: string, method = "GET") =>
      paywall(new Request(`https://app.example${path}`, { method }), next);
    const priced = await GET("/api/users/7");
    expect(priced.status).toBe(402);
    expect(offerOf(priced).resource).toMatchObject({
      url: "https://app.example/api/users/7",
      description: "Access to user API",
    });
    expect(offerOf(priced).accepts[0]).toMatchObject({ amount: "10000", network: "eip155:84532" });
    expect((await GET("/api/users/7", "DELETE")).status).toBe(402);
    expect((await GET("/api/users")).status).toBe(200);
    expect((await GET("/api/users/7/posts")).status).toBe(200);
  });
});
