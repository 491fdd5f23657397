import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paymentRequestDigest } from "../../src/protocol/cbor/PaymentRequest.js";
import { issueCborRequest, matchCborContext } from "../../src/pricing/cborPaymentRequests.js";
import { resolveCborOffer } from "../../src/pricing/resolveCborOffer.js";

const offer = resolveCborOffer(
  "GET /api/quote",
  { currency: "USDC", amount: "10000", merchantPseudonym: "merchant:demo" },
  { deadlineSeconds: 300 },
);
const T0 = Date.parse("2026-11-23T14:00:17.250Z");

describe("stateless CBOR deadlines", () => {
  it("fills defaults: service id = route key, v0.3 refs, no humanity gate", () => {
    expect(offer).toMatchObject({
      serviceId: "GET /api/quote",
      revelationMaskRef: "mask:v0.3:open-fields",
      claimSchemaRef: "schema:v0.3:payment-intent",
      acceptsHumanityGate: false,
      amount: 10000n,
    });
    expect(() =>
      resolveCborOffer("GET /x", { currency: "STRK", amount: "1" }, { deadlineSeconds: 60 }),
    ).toThrow(/merchantPseudonym/);
  });

  it("puts the deadline on the next whole minute after now + lifetime", () => {
    const { request } = issueCborRequest(offer, T0);
    expect(request.deadline.toISOString()).toBe("2026-11-23T14:06:00.000Z");
    expect(issueCborRequest(offer, T0 + 30_000).request.deadline).toEqual(request.deadline);
  });

  it("recognises its own request until the deadline (plus skew), then says expired", () => {
    const issued = issueCborRequest(offer, T0);
    const context = paymentRequestDigest(issued.bytes);
    const deadline = issued.request.deadline.getTime();
    expect(matchCborContext(offer, context, T0, 30)).toMatchObject({
      ok: true,
      issued: { bytes: issued.bytes },
    });
    expect(matchCborContext(offer, context, deadline + 29_000, 30).ok).toBe(true);
    expect(matchCborContext(offer, context, deadline + 31_000, 30)).toEqual({ ok: false, reason: "expired" });
    expect(matchCborContext(offer, new Uint8Array(32), T0, 30)).toEqual({ ok: false, reason: "unknown" });
  });

  it("property: a request issued at any time matches at any time up to its deadline, for another route never", () => {
    const other = { ...offer, serviceId: "GET /api/other" };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 300_000 }),
        (issuedAt, later) => {
          const issued = issueCborRequest(offer, issuedAt);
          const context = paymentRequestDigest(issued.bytes);
          const at = Math.min(issuedAt + later, issued.request.deadline.getTime());
          expect(matchCborContext(offer, context, at, 0).ok).toBe(true);
          expect(matchCborContext(other, context, at, 0).ok).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
