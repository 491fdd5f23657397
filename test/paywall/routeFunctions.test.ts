import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import type { RouteConfig as OfficialRouteConfig } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402, type X402Options } from "../../src/index.js";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createGateway } from "../../src/gateway/createGateway.js";
import { AssetTable } from "../../src/pricing/knownAssets.js";
import { resolvePaymentOptions } from "../../src/pricing/resolvePaymentOptions.js";
import type { RouteRequestContext } from "../../src/pricing/routeFunctions.js";
import { GatewayError } from "../../src/protocol/errors.js";
import { customResponseBody } from "../../src/paywall/responses/customResponseBody.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { warningLogger } from "../support/warningLogger.js";

// The function examples of the official "@x402/express Advanced Examples" README (coinbase/x402,
// examples/typescript/servers/advanced/README.md: "Dynamic Pricing" and "Dynamic PayTo"), as printed. Only the
// placeholders are filled in: `evmAddress` and the "0x..." of `addressLookup` are not addresses. Each
// `satisfies` the official `RouteConfig` type, so the typecheck fails if they drift from it.
const evmAddress = "0x2222222222222222222222222222222222222222";
const addressLookup: Record<string, `0x${string}`> = {
  US: "0x3333333333333333333333333333333333333333",
  UK: "0x4444444444444444444444444444444444444444",
};

/** "Example: Dynamic Pricing". */
const dynamicPricing = {
  "GET /weather": {
    accepts: {
      scheme: "exact",
      price: (context) => {
        const tier = context.adapter.getQueryParam?.("tier") ?? "standard";
        return tier === "premium" ? "$0.005" : "$0.001";
      },
      network: "eip155:84532",
      payTo: evmAddress,
    },
  },
} satisfies Record<string, OfficialRouteConfig>;

/** "Example: Dynamic PayTo". */
const dynamicPayTo = {
  "GET /weather": {
    accepts: {
      scheme: "exact",
      price: "$0.001",
      network: "eip155:84532",
      payTo: (context) => {
        const country = context.adapter.getQueryParam?.("country") ?? "US";
        // The README's `addressLookup[country]` does not typecheck under strict settings (`country` is
        // `string | string[]`): cast, as the official example file (express/dynamic-pay-to.ts) does.
        return addressLookup[country as string] as string;
      },
    },
  },
} satisfies Record<string, OfficialRouteConfig>;

// A public test key (anvil's first dev account); it signs, nothing is sent to a chain here.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const PAY_TO = evmAddress;
const option = { scheme: "exact", network: "eip155:84532", payTo: PAY_TO } as const;

let facilitator: FacilitatorDouble;
const servers: LoopbackServer[] = [];
let handled = 0;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await facilitator.close();
});

async function serve(routes: X402Options["routes"], extra: Partial<X402Options> = {}): Promise<string> {
  const app = express();
  app.use(x402({ facilitator: { url: facilitator.url }, routes, ...extra }));
  app.use((_req, res) => {
    handled += 1;
    res.json({ report: { weather: "sunny", temperature: 70 } });
  });
  const server = await listenOnLoopback(app);
  servers.push(server);
  return server.url;
}

const official = () =>
  wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));

async function offerAt(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(402);
  const offer = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
  expect(PaymentRequiredV2Schema.safeParse(offer).success).toBe(true);
  return offer;
}

/** What the facilitator and the handler saw since `before`. */
function counts() {
  const at = { verify: facilitator.count("verify"), settle: facilitator.count("settle"), handled };
  return () => ({
    verify: facilitator.count("verify") - at.verify,
    settle: facilitator.count("settle") - at.settle,
    handled: handled - at.handled,
  });
}

describe("the official README's function examples, as they are", () => {
  it("Dynamic Pricing: the offer's amount follows the query's tier", async () => {
    const base = await serve(dynamicPricing);
    expect((await offerAt(`${base}/weather`)).accepts[0]).toMatchObject({ amount: "1000", payTo: PAY_TO });
    expect((await offerAt(`${base}/weather?tier=premium`)).accepts[0]).toMatchObject({ amount: "5000" });
    // A browser's paywall page shows and offers the price computed for its request.
    const page = await fetch(`${base}/weather?tier=premium`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(402);
    expect(await page.text()).toContain("0.005");
    const header = decodePaymentRequiredHeader(page.headers.get("payment-required") ?? "");
    expect(header.accepts[0]).toMatchObject({ amount: "5000" });
  });

  it("Dynamic Pricing: the official client pays the premium price once, and exactly that is settled", async () => {
    const base = await serve(dynamicPricing);
    const seen = counts();
    const res = await official()(`${base}/weather?tier=premium`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: { weather: "sunny", temperature: 70 } });
    expect(seen()).toEqual({ verify: 1, settle: 1, handled: 1 });
    const settled = facilitator.calls.filter((call) => call.endpoint === "settle").at(-1)?.body as {
      paymentRequirements: { amount: string };
      paymentPayload: { payload: { authorization: { value: string } } };
    };
    expect(settled.paymentRequirements.amount).toBe("5000");
    expect(settled.paymentPayload.payload.authorization.value).toBe("5000");
  });

  it("Dynamic PayTo: the offer's payee follows the query's country, and the paid retry pays it", async () => {
    const base = await serve(dynamicPayTo);
    expect((await offerAt(`${base}/weather`)).accepts[0]?.payTo).toBe(addressLookup.US);
    expect((await offerAt(`${base}/weather?country=UK`)).accepts[0]?.payTo).toBe(addressLookup.UK);
    const res = await official()(`${base}/weather?country=UK`);
    expect(res.status).toBe(200);
    const settled = facilitator.calls.filter((call) => call.endpoint === "settle").at(-1)?.body as {
      paymentRequirements: { payTo: string };
    };
    expect(settled.paymentRequirements.payTo).toBe(addressLookup.UK);
  });

  it("Dynamic PayTo: a country the lookup does not know has no payee: 500 route_function_invalid", async () => {
    const base = await serve(dynamicPayTo);
    const res = await fetch(`${base}/weather?country=FR`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: "route_function_invalid", details: { field: "payTo" } });
  });
});

describe("a price function is asked again for the paid retry", () => {
  it("a price that changed between the offer and the retry is refused: 402 payment_mismatch, nothing verified or settled", async () => {
    let calls = 0;
    const base = await serve({
      "GET /moving": { accepts: { ...option, price: () => (++calls === 1 ? "$0.01" : "$0.02") } },
    });
    const seen = counts();
    const res = await official()(`${base}/moving`);
    expect(res.status).toBe(402);
    const body = (await res.json()) as { error: string; details: Record<string, string> };
    expect(body).toMatchObject({
      error: "payment_mismatch",
      details: { expected: "20000", received: "10000" },
    });
    expect(calls).toBe(2);
    expect(seen()).toEqual({ verify: 0, settle: 0, handled: 0 });
  });

  it("a payment that fits two computed options with different terms is refused; identical ones are one option", async () => {
    const price = () => "$0.01";
    const base = await serve({
      "GET /two": {
        accepts: [
          { ...option, price, maxTimeoutSeconds: 60 },
          { ...option, price, maxTimeoutSeconds: 120 },
        ],
      },
      "GET /same": {
        accepts: [
          { ...option, price },
          { ...option, price },
        ],
      },
    });
    const seen = counts();
    const res = await official()(`${base}/two`);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: "payment_mismatch", details: { received: "several" } });
    expect(seen()).toEqual({ verify: 0, settle: 0, handled: 0 });
    expect((await official()(`${base}/same`)).status).toBe(200);
    expect(seen()).toEqual({ verify: 1, settle: 1, handled: 1 });
  });

  it("an offer with a function is never served from the cache of encoded offers: the same URL is priced anew", async () => {
    let cents = 0;
    const base = await serve({
      "GET /ticker": { accepts: { ...option, price: () => `$0.0${(cents += 1)}` } },
    });
    expect((await offerAt(`${base}/ticker`)).accepts[0]?.amount).toBe("10000");
    expect((await offerAt(`${base}/ticker`)).accepts[0]?.amount).toBe("20000");
  });

  it("an async price function is awaited, and given the request's path, method, route and payment header", async () => {
    const contexts: RouteRequestContext[] = [];
    const base = await serve({
      "GET /items/:id": {
        accepts: {
          ...option,
          price: async (context: RouteRequestContext) => {
            contexts.push(context);
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { amount: "1234", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" };
          },
        },
      },
    });
    const res = await official()(`${base}/items/7?x=1&x=2`, { headers: { "user-agent": "ua/1" } });
    expect(res.status).toBe(200);
    expect(contexts).toHaveLength(2);
    const [offered, paid] = contexts as [RouteRequestContext, RouteRequestContext];
    expect(offered).toMatchObject({ path: "/items/7", method: "GET", routePattern: "GET /items/:id" });
    expect(offered.paymentHeader).toBeUndefined();
    expect(paid.paymentHeader).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(offered.adapter.getQueryParam("x")).toEqual(["1", "2"]);
    expect(offered.adapter.getQueryParams()).toEqual({ x: ["1", "2"] });
    expect(offered.adapter.getUrl()).toBe(`${base}/items/7?x=1&x=2`);
    expect(offered.adapter.getUserAgent()).toBe("ua/1");
    expect(offered.adapter.getHeader("User-Agent")).toBe("ua/1");
  });

  it("a client's query cannot swap the prototype of getQueryParams(): `__proto__` is one more own parameter", async () => {
    let queryParams: Record<string, string | string[]> | undefined;
    const base = await serve({
      "GET /q": {
        accepts: {
          ...option,
          price: (context: RouteRequestContext) => {
            queryParams = context.adapter.getQueryParams();
            return "$0.01";
          },
        },
      },
    });
    await offerAt(`${base}/q?__proto__=a&__proto__=b&tier=x`);
    expect(Object.getPrototypeOf(queryParams)).toBe(Object.prototype);
    expect(Object.keys(queryParams!).sort()).toEqual(["__proto__", "tier"]);
    expect(Object.getOwnPropertyDescriptor(queryParams, "__proto__")?.value).toEqual(["a", "b"]);
  });
});

describe("functions that throw or return garbage", () => {
  it("a price function that throws: 500 route_function_failed, the handler not run, nothing verified or settled", async () => {
    const { logger, warned } = warningLogger();
    const base = await serve(
      {
        "GET /boom": {
          accepts: {
            ...option,
            price: () => {
              throw new Error("price oracle down");
            },
          },
        },
      },
      { logger },
    );
    const seen = counts();
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; message: string };
    expect(body).toMatchObject({ error: "route_function_failed", details: { field: "price" } });
    expect(body.message).not.toContain("oracle");
    expect(seen()).toEqual({ verify: 0, settle: 0, handled: 0 });
    // The operator reads what it threw.
    expect(warned).toContainEqual(
      expect.objectContaining({ code: "route_function_failed", err: new Error("price oracle down") }),
    );
  });

  it("what a function returned is the operator's to read, never echoed to the client (route_function_invalid)", async () => {
    const { logger, warned } = warningLogger();
    const secret = "postgres://admin:hunter2@10.1.2.3/payees";
    const base = await serve(
      {
        "GET /leaky-payee": { accepts: { ...option, price: "$0.01", payTo: () => secret } },
        "GET /leaky-price": { accepts: { ...option, price: () => `$${secret}` } },
      },
      { logger },
    );
    for (const path of ["/leaky-payee", "/leaky-price"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text), path).toMatchObject({ error: "route_function_invalid" });
      expect(text, path).not.toContain("10.1.2.3");
      expect(text, path).not.toContain("hunter2");
    }
    // The operator reads what it returned.
    const logged = warned
      .filter((line) => line.code === "route_function_invalid")
      .map((line) => (line.err as Error | undefined)?.message ?? "");
    expect(logged).toHaveLength(2);
    for (const message of logged) expect(message).toContain("10.1.2.3");
  });

  it("a function that throws only on the paid retry: 500, nothing verified, settled or served", async () => {
    const base = await serve({
      "GET /late": {
        accepts: {
          ...option,
          price: (context: RouteRequestContext) => {
            if (context.paymentHeader !== undefined) throw new Error("no price now");
            return "$0.01";
          },
        },
      },
    });
    const seen = counts();
    const res = await official()(`${base}/late`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: "route_function_failed" });
    expect(seen()).toEqual({ verify: 0, settle: 0, handled: 0 });
  });

  const garbage: Array<[string, Record<string, unknown>]> = [
    ["a negative number", { price: () => -1 }],
    ["zero", { price: () => 0 }],
    ["NaN", { price: () => Number.NaN }],
    ["Infinity", { price: () => Number.POSITIVE_INFINITY }],
    ["an exponent form", { price: () => 1e-7 }],
    ["more decimals than USDC has", { price: () => "$0.0000001" }],
    ["a word", { price: () => "cheap" }],
    ["a negative money string", { price: () => "-$1" }],
    ["undefined", { price: () => undefined }],
    ["null", { price: async () => null }],
    ["a bigint", { price: () => 10n }],
    ["a fractional atomic amount", { price: () => ({ amount: "1.5", asset: PAY_TO }) }],
    ["a negative atomic amount", { price: () => ({ amount: "-1", asset: PAY_TO }) }],
    ["a zero atomic amount", { price: () => ({ amount: "0", asset: PAY_TO }) }],
    ["an atomic amount without asset", { price: () => ({ amount: "100" }) }],
    ["a payTo that is not an address", { price: "$0.01", payTo: () => "0x1234" }],
    ["the zero address as payTo", { price: "$0.01", payTo: () => `0x${"0".repeat(40)}` }],
    [
      "a payTo with a wrong checksum",
      { price: "$0.01", payTo: () => "0xAbCdEf0000000000000000000000000000000001" },
    ],
    ["a number as payTo", { price: "$0.01", payTo: () => 42 }],
    ["an empty payTo", { price: "$0.01", payTo: async () => "" }],
  ];

  it.each(garbage)(
    "a function returning %s: 500 route_function_invalid, unpaid and paid alike, nothing settled",
    async (_name, fields) => {
      const base = await serve({
        "GET /bad": { accepts: { ...option, ...fields } },
      } as unknown as X402Options["routes"]);
      const seen = counts();
      const res = await fetch(`${base}/bad`);
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: "route_function_invalid" });
      const paid = await fetch(`${base}/bad`, { headers: { "payment-signature": "e30=" } });
      expect(paid.status).toBe(500);
      expect(seen()).toEqual({ verify: 0, settle: 0, handled: 0 });
    },
  );

  it("whatever a price function returns, it is offered as exactly its amount or refused: never a guess", async () => {
    const defaults = {
      network: "eip155:84532",
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      assets: new AssetTable([]),
    };
    const context = { path: "/", method: "GET" } as RouteRequestContext;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.double(),
          fc.integer().map((n) => `$${n / 100}`),
          fc.record({ amount: fc.string(), asset: fc.constant(PAY_TO) }),
          fc.bigInt({ min: 1n, max: 10n ** 30n }).map((n) => ({ amount: n.toString(), asset: PAY_TO })),
        ),
        async (returned) => {
          const { dynamic } = resolvePaymentOptions({ price: () => returned as never }, defaults);
          try {
            const [requirements] = (await dynamic?.(context)) ?? [];
            const amount = requirements?.amount ?? "";
            expect(amount).toMatch(/^[1-9][0-9]*$/);
            if (typeof returned === "object" && returned !== null && "amount" in returned)
              expect(amount).toBe((returned as { amount: string }).amount);
          } catch (error) {
            expect(error).toBeInstanceOf(GatewayError);
            expect((error as GatewayError).code).toBe("route_function_invalid");
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("unpaidResponseBody", () => {
  it("a function's { contentType, body } is the 402 body; the offer stays in PAYMENT-REQUIRED", async () => {
    const base = await serve({
      "GET /preview": {
        accepts: { ...option, price: "$0.01" },
        unpaidResponseBody: async (context: RouteRequestContext) => ({
          contentType: "application/json",
          body: { preview: `first lines of ${context.path}` },
        }),
      },
    });
    const res = await fetch(`${base}/preview`);
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ preview: "first lines of /preview" });
    const offer = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    expect(offer.accepts[0]).toMatchObject({ amount: "10000", payTo: PAY_TO });
  });

  it("a text body is sent as is; a browser still gets the paywall page", async () => {
    const base = await serve({
      "GET /text": {
        accepts: { ...option, price: "$0.01" },
        unpaidResponseBody: () => ({ contentType: "text/plain; charset=utf-8", body: "pay first" }),
      },
    });
    const res = await fetch(`${base}/text`);
    expect(res.status).toBe(402);
    expect(await res.text()).toBe("pay first");
    const page = await fetch(`${base}/text`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(402);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("the static { contentType, body } form (what the gateway config can say) answers the same", async () => {
    const base = await serve({
      "GET /static": {
        accepts: { ...option, price: "$0.01" },
        unpaidResponseBody: { contentType: "application/problem+json", body: { title: "Payment required" } },
      },
    });
    const res = await fetch(`${base}/static`);
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toEqual({ title: "Payment required" });
  });

  it("a static body JSON cannot write is refused at start-up, naming the field, not with a 500 on every request", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const [field, body] of [
      ["unpaidResponseBody", { n: 1n }],
      ["settlementFailedResponseBody", circular],
    ] as const) {
      expect(() =>
        x402({
          facilitator: { url: facilitator.url },
          routes: {
            "GET /static": {
              accepts: { ...option, price: "$0.01" },
              [field]: { contentType: "application/json", body },
            },
          },
        }),
      ).toThrow(new RegExp(`routes\\["GET /static"\\]\\.${field}\\.body: .*JSON`));
    }
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("x");
      },
      "route_function_failed",
    ],
    ["returns a string", () => "body", "route_function_invalid"],
    [
      "returns a content type with a newline",
      () => ({ contentType: "text/plain\r\nX-A: b", body: "" }),
      "route_function_invalid",
    ],
    [
      "returns a body JSON cannot write",
      () => ({ contentType: "application/json", body: { n: 1n } }),
      "route_function_invalid",
    ],
  ])("a function that %s: 500 %s, nothing served", async (_name, unpaidResponseBody, code) => {
    const base = await serve({
      "GET /bad-body": { accepts: { ...option, price: "$0.01" }, unpaidResponseBody } as never,
    });
    const seen = counts();
    const res = await fetch(`${base}/bad-body`);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: code });
    expect(seen().handled).toBe(0);
  });
});

describe("what a body function returns, as a property", () => {
  it("any return value is either a { contentType, body } sent as given, or route_function_invalid", async () => {
    const context = () => ({ path: "/", method: "GET" }) as RouteRequestContext;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({ contentType: fc.string(), body: fc.anything() }),
          fc.record({ contentType: fc.constantFrom("text/plain", "application/json"), body: fc.jsonValue() }),
        ),
        async (returned) => {
          try {
            const encoded = await customResponseBody(
              { unpaidResponseBody: () => returned as never },
              "unpaidResponseBody",
              context,
            );
            const { contentType, body } = returned as { contentType: string; body: unknown };
            expect(encoded?.contentType).toBe(contentType);
            expect(contentType).toMatch(/^[\x21-\x7e][\x20-\x7e]*$/);
            const text = encoded && new TextDecoder().decode(encoded.bytes);
            if (typeof body === "string" && contentType === "text/plain") expect(text).toBe(body);
            else if (contentType === "application/json")
              expect(JSON.parse(text ?? "")).toEqual(JSON.parse(JSON.stringify(body ?? {})));
          } catch (error) {
            expect(error).toBeInstanceOf(GatewayError);
            expect((error as GatewayError).code).toBe("route_function_invalid");
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("settlementFailedResponseBody", () => {
  const failing = () => ({
    success: false,
    errorReason: "insufficient_funds",
    transaction: "",
    network: "eip155:84532",
  });

  it("its body answers a failed settlement, with PAYMENT-RESPONSE; the handler's answer is not delivered", async () => {
    const given: unknown[] = [];
    const base = await serve({
      "GET /fails": {
        accepts: { ...option, price: "$0.01" },
        settlementFailedResponseBody: (_context: RouteRequestContext, settleResult: unknown) => {
          given.push(settleResult);
          return { contentType: "application/json", body: { sorry: "not settled" } };
        },
      },
    });
    const settle = facilitator.settle;
    facilitator.settle = failing;
    try {
      const res = await official()(`${base}/fails`);
      expect(res.status).toBe(402);
      expect(await res.json()).toEqual({ sorry: "not settled" });
      expect(decodePaymentResponseHeader(res.headers.get("payment-response") ?? "")).toMatchObject({
        success: false,
        errorReason: "insufficient_funds",
      });
      expect(given).toEqual([
        expect.objectContaining({
          success: false,
          errorReason: "insufficient_funds",
          network: "eip155:84532",
        }),
      ]);
    } finally {
      facilitator.settle = settle;
    }
  });

  it("one that throws still answers 402 settlement_failed in the standard body", async () => {
    const base = await serve({
      "GET /fails-twice": {
        accepts: { ...option, price: "$0.01" },
        settlementFailedResponseBody: () => {
          throw new Error("template missing");
        },
      },
    });
    const settle = facilitator.settle;
    facilitator.settle = failing;
    try {
      const res = await official()(`${base}/fails-twice`);
      expect(res.status).toBe(402);
      expect(await res.json()).toMatchObject({ error: "settlement_failed" });
    } finally {
      facilitator.settle = settle;
    }
  });
});

describe.each(PAYWALL_ADAPTERS)("under $name", (adapter) => {
  it("a price function and an unpaid body work the same way, and the paid retry is priced again", async () => {
    let calls = 0;
    const server = await listenOnLoopback(
      adapter.app(
        {
          facilitator: { url: facilitator.url },
          routes: {
            "GET /weather": {
              accepts: {
                ...option,
                price: (context: RouteRequestContext) => {
                  calls += 1;
                  return context.adapter.getQueryParam("tier") === "premium" ? "$0.005" : "$0.001";
                },
              },
              unpaidResponseBody: () => ({ contentType: "application/json", body: { hint: "pay" } }),
            },
          },
        },
        { "GET /weather": (_req, res) => sendJson(res, 200, { paid: "content" }) },
      ),
    );
    servers.push(server);
    const unpaid = await fetch(`${server.url}/weather?tier=premium`);
    expect(unpaid.status).toBe(402);
    expect(await unpaid.json()).toEqual({ hint: "pay" });
    const res = await official()(`${server.url}/weather?tier=premium`);
    expect(res.status).toBe(200);
    expect(calls).toBe(3);
    const settled = facilitator.calls.filter((call) => call.endpoint === "settle").at(-1)?.body as {
      paymentRequirements: { amount: string };
    };
    expect(settled.paymentRequirements.amount).toBe("5000");
  });
});

describe("the gateway config", () => {
  const base = {
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: { url: "http://127.0.0.1:1" },
    upstreams: [{ url: "http://127.0.0.1:2" }],
  };
  const route = { accepts: { ...option, price: "$0.01" } };

  it("takes the static { contentType, body } forms of both bodies", () => {
    const parsed = gatewayConfigSchema.parse({
      ...base,
      routes: {
        "GET /a": {
          ...route,
          unpaidResponseBody: { contentType: "text/plain", body: "pay first" },
          settlementFailedResponseBody: { contentType: "application/json", body: { retry: true } },
        },
      },
    });
    expect(parsed.routes["GET /a"]?.unpaidResponseBody).toEqual({
      contentType: "text/plain",
      body: "pay first",
    });
  });

  it("the gateway answers an unpaid API client with the configured body, the offer in PAYMENT-REQUIRED", async () => {
    const config = gatewayConfigSchema.parse({
      ...base,
      facilitator: { url: facilitator.url },
      logging: { level: "silent" },
      routes: {
        "GET /a": { ...route, unpaidResponseBody: { contentType: "text/plain", body: "pay first" } },
      },
    });
    const gateway = await createGateway(config).listen();
    try {
      const res = await fetch(`${gateway.url}/a`);
      expect(res.status).toBe(402);
      expect(res.headers.get("content-type")).toBe("text/plain");
      expect(await res.text()).toBe("pay first");
      const offer = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
      expect(offer.accepts[0]).toMatchObject({ amount: "10000", payTo: PAY_TO });
    } finally {
      await gateway.close();
    }
  });

  it.each([
    ["a price function", { ...route, accepts: { ...option, price: () => "$0.01" } }],
    ["a payTo function", { ...route, payTo: () => PAY_TO }],
    [
      "an unpaidResponseBody function",
      { ...route, unpaidResponseBody: () => ({ contentType: "a/b", body: "" }) },
    ],
    ["a body without contentType", { ...route, unpaidResponseBody: { body: "x" } }],
    [
      "an unknown key beside the body",
      { ...route, settlementFailedResponseBody: { contentType: "a/b", body: 1, status: 500 } },
    ],
  ])("refuses %s (a config file cannot carry code)", (_name, config) => {
    expect(gatewayConfigSchema.safeParse({ ...base, routes: { "GET /a": config } }).success).toBe(false);
  });
});
