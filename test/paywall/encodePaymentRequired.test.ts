import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { encodePaymentRequired, type Offer } from "../../src/paywall/responses/respond.js";
import { PlainOfferCache } from "../../src/paywall/responses/PlainOfferCache.js";
import { ERROR_STATUS, GatewayError, type ErrorCode } from "../../src/protocol/errors.js";
import type { PaymentRequirements } from "../../src/protocol/schemas.js";
import type { PricedRoute } from "../../src/pricing/RouteTable.js";

/** The 402 as first written: one object, stringified whole. */
function stringifiedWhole(error: GatewayError, offer: Offer): { header: string; body: string } {
  const paymentRequired: Record<string, unknown> = {
    x402Version: 2,
    error: error.code,
    resource: offer.resource,
    accepts: offer.accepts,
  };
  if (offer.extensions && Object.keys(offer.extensions).length > 0)
    paymentRequired.extensions = offer.extensions;
  return {
    header: Buffer.from(JSON.stringify(paymentRequired), "utf8").toString("base64"),
    body: JSON.stringify({ ...paymentRequired, message: error.message, details: error.details }),
  };
}

const requirements = fc.record({
  scheme: fc.string(),
  network: fc.string(),
  amount: fc.string(),
  asset: fc.string(),
  payTo: fc.string(),
  maxTimeoutSeconds: fc.integer(),
  extra: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
}) as fc.Arbitrary<PaymentRequirements>;

const offers: fc.Arbitrary<Offer> = fc.record({
  resource: fc.record({
    url: fc.string({ unit: "binary" }),
    description: fc.option(fc.string({ unit: "binary" }), { nil: undefined }),
    mimeType: fc.option(fc.string(), { nil: undefined }),
  }),
  accepts: fc.array(requirements, { maxLength: 3 }),
  extensions: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
});

const errors = fc
  .record({
    code: fc.constantFrom(...(Object.keys(ERROR_STATUS) as ErrorCode[])),
    message: fc.string({ unit: "binary" }),
    details: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
  })
  .map(({ code, message, details }) => new GatewayError(code, message, { details }));

describe("encodePaymentRequired", () => {
  it("property: writes the same header and body bytes as stringifying the whole object", () => {
    fc.assert(
      fc.property(errors, offers, (error, offer) => {
        const encoded = encodePaymentRequired(error, offer);
        const expected = stringifiedWhole(error, offer);
        expect(encoded.header).toBe(expected.header);
        expect(encoded.body).toBe(expected.body);
        expect(encoded.bodyBytes).toBe(Buffer.byteLength(expected.body));
        // Twice: the second encode reads the options' JSON from the cache.
        expect(encodePaymentRequired(error, offer).body).toBe(expected.body);
      }),
    );
  });
});

describe("PlainOfferCache", () => {
  const routeA = { key: "GET /a" } as PricedRoute;
  const routeB = { key: "GET /b" } as PricedRoute;
  const get = { method: "GET", url: "/a", mountPath: "" };
  const post = { method: "POST", url: "/a", mountPath: "" };
  const counting = () => {
    const calls: string[] = [];
    const cache = new PlainOfferCache((route, url, req) => {
      calls.push(`${route.key} ${url}${req.method === "GET" ? "" : ` ${req.method}`}`);
      return { header: `${route.key} ${url}`, body: url, bodyBytes: url.length };
    }, 2);
    return { calls, cache };
  };

  it("encodes each route and resource URL once", () => {
    const { calls, cache } = counting();
    expect(cache.get(routeA, "u1", get).header).toBe("GET /a u1");
    expect(cache.get(routeA, "u1", get).header).toBe("GET /a u1");
    expect(cache.get(routeB, "u1", get).header).toBe("GET /b u1");
    expect(calls).toEqual(["GET /a u1", "GET /b u1"]);
  });

  it("encodes each method apart (a Bazaar declaration names the request's method)", () => {
    const { calls, cache } = counting();
    cache.get(routeA, "u1", get);
    cache.get(routeA, "u1", post);
    cache.get(routeA, "u1", post);
    expect(calls).toEqual(["GET /a u1", "GET /a u1 POST"]);
  });

  it("keeps at most maxPerRoute answers per route, starting over when full", () => {
    const { calls, cache } = counting();
    for (const url of ["u1", "u2", "u3", "u1"]) expect(cache.get(routeA, url, get).body).toBe(url);
    // u3 did not fit beside u1 and u2: the route's answers were dropped, so u1 is encoded again.
    expect(calls).toEqual(["GET /a u1", "GET /a u2", "GET /a u3", "GET /a u1"]);
  });
});
