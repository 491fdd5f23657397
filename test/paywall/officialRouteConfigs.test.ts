import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import type { RouteConfig as OfficialRouteConfig } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402, type X402Options } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

// The route examples of the installed official READMEs (@x402/express and @x402/core 2.27), copied as
// data. Only the README placeholders are filled in: "0xYourAddress" / "0xAddress" / `evmAddress` are
// not addresses, so they are replaced by one; every other key and value is as printed. Each `satisfies`
// the official `RouteConfig` type, so the typecheck fails if they drift from it.
const PAY_TO = "0x2222222222222222222222222222222222222222";
const evmAddress = PAY_TO;
const svmAddress = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

/** @x402/express README, "Quick start": the single-object `accepts`. */
const expressQuickStart = {
  "GET /protected-route": {
    accepts: {
      scheme: "exact",
      price: "$0.10",
      network: "eip155:84532",
      payTo: PAY_TO,
    },
    description: "Access to premium content",
  },
} satisfies Record<string, OfficialRouteConfig>;

/** @x402/express README, "Route Configuration". */
const expressRouteConfiguration = {
  "GET /api/protected": {
    accepts: {
      scheme: "exact",
      price: "$0.10",
      network: "eip155:84532",
      payTo: PAY_TO,
      maxTimeoutSeconds: 60,
    },
    description: "Premium API access",
  },
} satisfies Record<string, OfficialRouteConfig>;

/** @x402/express README, "Multiple Protected Routes". */
const expressMultipleRoutes = {
  "GET /api/premium/*": {
    accepts: {
      scheme: "exact",
      price: "$1.00",
      network: "eip155:8453",
      payTo: PAY_TO,
    },
    description: "Premium API access",
  },
  "GET /api/data": {
    accepts: {
      scheme: "exact",
      price: "$0.50",
      network: "eip155:84532",
      payTo: PAY_TO,
      maxTimeoutSeconds: 120,
    },
    description: "Data endpoint access",
  },
} satisfies Record<string, OfficialRouteConfig>;

/** @x402/core README, "Route Configuration": a single option, then EVM + SVM options. */
const coreRouteConfiguration = {
  // Single payment option
  "GET /api/data": {
    accepts: {
      scheme: "exact",
      network: "eip155:8453",
      payTo: PAY_TO,
      price: "$0.01",
    },
    description: "Data endpoint",
    mimeType: "application/json",
  },

  // Multiple payment options (EVM + SVM)
  "POST /api/*": {
    accepts: [
      {
        scheme: "exact",
        network: "eip155:8453",
        payTo: evmAddress,
        price: "$0.05",
      },
      {
        scheme: "exact",
        network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        payTo: svmAddress,
        price: "$0.05",
      },
    ],
  },
} satisfies Record<string, OfficialRouteConfig>;

const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
// A public test key (anvil's first dev account); it signs, nothing is sent to a chain here.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

let facilitator: FacilitatorDouble;
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await facilitator.close();
});

/** An app with the official routes given to `x402()` as they are, and no top-level payTo/network. */
async function serve(routes: X402Options["routes"], extra: Partial<X402Options> = {}): Promise<string> {
  const app = express();
  app.use(x402({ facilitator: { url: facilitator.url }, routes, ...extra }));
  app.use((_req, res) => res.json({ paid: "content" }));
  const server = await listenOnLoopback(app);
  servers.push(server);
  return server.url;
}

async function offerAt(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  expect(res.status).toBe(402);
  const official = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
  expect(PaymentRequiredV2Schema.safeParse(official).success).toBe(true);
  return official;
}

describe("the official README route examples, as they are", () => {
  it("express quick start: a single-object accepts offers its price, network and payee", async () => {
    const base = await serve(expressQuickStart);
    const offer = await offerAt(`${base}/protected-route`);
    expect(offer.resource).toEqual({
      url: `${base}/protected-route`,
      description: "Access to premium content",
      mimeType: "application/json",
    });
    expect(offer.accepts).toEqual([
      {
        scheme: "exact",
        network: "eip155:84532",
        amount: "100000",
        asset: BASE_SEPOLIA_USDC,
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: "USDC", version: "2" },
      },
    ]);
  });

  it("express route configuration: the option's maxTimeoutSeconds is offered", async () => {
    const base = await serve(expressRouteConfiguration);
    const offer = await offerAt(`${base}/api/protected`);
    expect(offer.accepts).toHaveLength(1);
    expect(offer.accepts[0]).toMatchObject({ amount: "100000", maxTimeoutSeconds: 60, payTo: PAY_TO });
    expect(offer.resource.description).toBe("Premium API access");
  });

  it("express multiple routes: a wildcard on Base and an exact path on Base Sepolia", async () => {
    const base = await serve(expressMultipleRoutes);
    const premium = await offerAt(`${base}/api/premium/report`);
    expect(premium.accepts[0]).toMatchObject({
      network: "eip155:8453",
      asset: BASE_USDC,
      amount: "1000000",
      maxTimeoutSeconds: 300,
    });
    const data = await offerAt(`${base}/api/data`);
    expect(data.accepts[0]).toMatchObject({
      network: "eip155:84532",
      amount: "500000",
      maxTimeoutSeconds: 120,
    });
    expect(data.resource.description).toBe("Data endpoint access");
  });

  it("core single option: description and mimeType reach the offer", async () => {
    const { "GET /api/data": single } = coreRouteConfiguration;
    const base = await serve({ "GET /api/data": single });
    const offer = await offerAt(`${base}/api/data`);
    expect(offer.resource).toMatchObject({ description: "Data endpoint", mimeType: "application/json" });
    expect(offer.accepts[0]).toMatchObject({ network: "eip155:8453", amount: "10000", payTo: PAY_TO });
  });

  it("core EVM + SVM: both offered, the Solana one in mainnet USDC with the facilitator's fee payer", async () => {
    const feePayer = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";
    const network = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
    facilitator.kinds.push({ x402Version: 2, scheme: "exact", network, extra: { feePayer } } as never);
    try {
      const base = await serve({ "POST /api/*": coreRouteConfiguration["POST /api/*"] });
      const offer = await offerAt(`${base}/api/anything`, { method: "POST" });
      expect(offer.accepts[1]).toMatchObject({
        network,
        amount: "50000",
        asset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        payTo: svmAddress,
        extra: { feePayer },
      });
    } finally {
      facilitator.kinds.pop();
    }
  });

  it("core EVM option alone (the Solana one left out) is offered", async () => {
    const post = coreRouteConfiguration["POST /api/*"];
    const base = await serve({ "POST /api/*": { accepts: post.accepts.slice(0, 1) } });
    const offer = await offerAt(`${base}/api/anything`, { method: "POST" });
    expect(offer.accepts).toEqual([
      expect.objectContaining({ network: "eip155:8453", amount: "50000", payTo: evmAddress }),
    ]);
  });

  it("the quick start route is paid by the official client: one verify, one settle, the content delivered", async () => {
    const base = await serve(expressQuickStart);
    const before = { verify: facilitator.count("verify"), settle: facilitator.count("settle") };
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    const res = await pay(`${base}/protected-route`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ paid: "content" });
    expect(facilitator.count("verify") - before.verify).toBe(1);
    expect(facilitator.count("settle") - before.settle).toBe(1);
    const settled = facilitator.calls.filter((call) => call.endpoint === "settle").at(-1)?.body as {
      paymentRequirements: { amount: string; payTo: string };
    };
    expect(settled.paymentRequirements).toMatchObject({ amount: "100000", payTo: PAY_TO });
  });
});

describe("the rest of the official RouteConfig fields", () => {
  it("extra, serviceName, tags, iconUrl, resource, extensions and a number price reach the offer", async () => {
    const base = await serve({
      "GET /tagged": {
        accepts: {
          scheme: "exact",
          price: 0.02,
          network: "eip155:84532",
          payTo: PAY_TO,
          extra: { assetTransferMethod: "eip3009" },
        },
        description: "Tagged",
        mimeType: "text/plain",
        serviceName: "Weather API",
        tags: ["weather", "forecast"],
        iconUrl: "https://example.com/icon.png",
        resource: "https://api.example.com/tagged",
        extensions: { example: { info: { note: "kept as given" } } },
      },
    });
    const offer = await offerAt(`${base}/tagged`);
    expect(offer.resource).toEqual({
      url: "https://api.example.com/tagged",
      description: "Tagged",
      mimeType: "text/plain",
      serviceName: "Weather API",
      tags: ["weather", "forecast"],
      iconUrl: "https://example.com/icon.png",
    });
    expect(offer.accepts[0]).toMatchObject({
      amount: "20000",
      extra: { name: "USDC", version: "2", assetTransferMethod: "eip3009" },
    });
    expect(offer.extensions).toEqual({ example: { info: { note: "kept as given" } } });
  });

  it("a route that names no network or payTo, with none at the top level, is refused naming the route", () => {
    expect(() =>
      x402({ facilitator: { url: facilitator.url }, routes: { "GET /a": { price: "$0.01" } } }),
    ).toThrow(/routes\.GET \/a|routes\["GET \/a"\]|GET \/a/);
    let message = "";
    try {
      x402({
        facilitator: { url: facilitator.url },
        network: "eip155:84532",
        routes: { "GET /a": { accepts: { price: "$0.01", network: "eip155:84532" } } },
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("GET /a");
    expect(message).toContain("no payTo");
    expect(message).not.toContain("no network");
  });

  it("the top-level payTo and network still fill a route that names neither", async () => {
    const base = await serve({ "GET /old": { price: "$0.01" } }, { payTo: PAY_TO, network: "eip155:84532" });
    const offer = await offerAt(`${base}/old`);
    expect(offer.accepts[0]).toMatchObject({ payTo: PAY_TO, network: "eip155:84532", amount: "10000" });
  });
});

describe.each(PAYWALL_ADAPTERS)("under $name", (adapter) => {
  it("the official fields reach the offer the same way", async () => {
    const server = await listenOnLoopback(
      adapter.app(
        {
          facilitator: { url: facilitator.url },
          routes: {
            ...expressQuickStart,
            "GET /protected-route": {
              ...expressQuickStart["GET /protected-route"],
              serviceName: "Premium",
              tags: ["premium"],
              extensions: { example: { info: {} } },
            },
          },
        },
        { "GET /protected-route": (_req, res) => sendJson(res, 200, { paid: "content" }) },
      ),
    );
    servers.push(server);
    const offer = await offerAt(`${server.url}/protected-route`);
    expect(offer.resource).toMatchObject({ serviceName: "Premium", tags: ["premium"] });
    expect(offer.accepts[0]).toMatchObject({ amount: "100000", payTo: PAY_TO, network: "eip155:84532" });
    expect(offer.extensions).toEqual({ example: { info: {} } });
  });
});

describe("hostile route fields", () => {
  const option = { scheme: "exact", network: "eip155:84532", payTo: PAY_TO, price: "$0.01" };
  const cases: Array<[string, Record<string, unknown>]> = [
    ["an empty accepts list", { accepts: [] }],
    ["accepts as a string", { accepts: "$0.01" }],
    ["accepts as null", { accepts: null }],
    ["an option without price", { accepts: { ...option, price: undefined } }],
    ["a negative number price", { accepts: { ...option, price: -1 } }],
    ["a zero number price", { accepts: { ...option, price: 0 } }],
    ["a price in exponent form", { accepts: { ...option, price: 1e-7 } }],
    ["NaN as price", { accepts: { ...option, price: Number.NaN } }],
    ["Infinity as price", { accepts: { ...option, price: Number.POSITIVE_INFINITY } }],
    ["more decimals than USDC has", { accepts: { ...option, price: 0.0000001 } }],
    ["extra as a string", { accepts: { ...option, extra: "x" } }],
    ["an unknown option key", { accepts: { ...option, colour: "red" } }],
    ["a 33-character serviceName", { accepts: option, serviceName: "x".repeat(33) }],
    ["an empty serviceName", { accepts: option, serviceName: "" }],
    ["a serviceName with a newline", { accepts: option, serviceName: "a\nb" }],
    ["six tags", { accepts: option, tags: ["a", "b", "c", "d", "e", "f"] }],
    ["a non-ASCII tag", { accepts: option, tags: ["wétter"] }],
    ["tags as a string", { accepts: option, tags: "weather" }],
    ["extensions as an array", { accepts: option, extensions: [] }],
    ["resource not a URL", { accepts: option, resource: "not a url" }],
    ["iconUrl over 2048 characters", { accepts: option, iconUrl: `https://e.com/${"a".repeat(2048)}` }],
  ];
  it.each(cases)("%s is refused at start-up", (_name, route) => {
    expect(() =>
      x402({
        facilitator: { url: facilitator.url },
        routes: { "GET /r": route } as unknown as X402Options["routes"],
      }),
    ).toThrow(/GET \/r/);
  });

  it("any serviceName is accepted exactly when it is 1 to 32 printable ASCII characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: "binary" }), (serviceName) => {
        const fits = /^[\x20-\x7e]{1,32}$/.test(serviceName);
        let accepted = true;
        try {
          x402({
            facilitator: { url: facilitator.url },
            routes: { "GET /r": { accepts: option, serviceName } } as X402Options["routes"],
          });
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(fits);
      }),
      { numRuns: 200 },
    );
  });

  it("any positive number price with at most 6 decimals is offered as that many micro-USDC", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_000 }), (micros) => {
        const price = micros / 1e6;
        if (!/^[0-9]+(\.[0-9]+)?$/.test(String(price))) return;
        const paywall = x402({
          facilitator: { url: facilitator.url },
          routes: { "GET /r": { accepts: { ...option, price } } } as X402Options["routes"],
        });
        expect(paywall.routes[0]?.requirements[0]?.amount).toBe(String(micros));
      }),
      { numRuns: 200 },
    );
  });
});
