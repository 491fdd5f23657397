import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodecs } from "../../../bench/codecs.js";
import { negotiatePaymentFormat } from "../../../src/protocol/negotiatePaymentFormat.js";
import { preferredOfferFormat } from "../../../src/protocol/preferredOfferFormat.js";

describe("offer format from Accept", () => {
  it.each<[string | undefined, "json" | "cbor"]>([
    [undefined, "json"],
    ["", "json"],
    ["*/*", "json"],
    ["application/json", "json"],
    ["application/x402+cbor", "cbor"],
    ["APPLICATION/X402+CBOR", "cbor"],
    ["application/x402+cbor, application/json", "cbor"],
    ["application/json, application/x402+cbor;q=0.9", "json"],
    ["application/json;q=0.5, application/x402+cbor", "cbor"],
    ["application/x402+cbor;q=0", "json"],
    ["application/x402+cbor;q=0.4, */*;q=0.5", "json"],
    ["application/x402+cbor;q=0.6, */*;q=0.5", "cbor"],
    ["application/x402+cbor;q=0.5, application/*;q=0.6", "json"],
    ["application/x402+cbor;q=bogus", "json"],
    ["application/x402+cbor;q=1.5", "json"],
    ["text/html, application/x402+cbor;q=0.1", "cbor"],
    ["application/x402+foo", "json"],
  ])("Accept %j → %s", (accept, expected) => {
    expect(preferredOfferFormat(accept)).toBe(expected);
  });

  it("property: any Accept value picks a format and never throws", () => {
    fc.assert(
      fc.property(fc.string(), (accept) => {
        expect(["json", "cbor"]).toContain(preferredOfferFormat(accept));
      }),
    );
  });

  it("payment format from Content-Type: CBOR, JSON, or an unknown x402 format", () => {
    expect(negotiatePaymentFormat("application/x402+cbor; charset=binary")).toEqual({
      ok: true,
      format: "cbor",
    });
    expect(negotiatePaymentFormat(undefined)).toEqual({ ok: true, format: "json" });
    expect(negotiatePaymentFormat("application/json")).toEqual({ ok: true, format: "json" });
    expect(negotiatePaymentFormat("Application/X402+Foo")).toEqual({
      ok: false,
      mediaType: "application/x402+foo",
    });
  });
});

describe("bench figures (sizes only; speeds are the bench's business)", () => {
  it("the CBOR offer is at most 0.75× the JSON offer; an Ed25519 payment is smaller than an EVM one", () => {
    const figures = compareCodecs({ minMs: 1 });
    expect(figures.offerRatio).toBeLessThanOrEqual(0.75);
    expect(figures.paymentCborEd25519).toBeLessThan(figures.paymentJson);
    expect(figures.paymentCborMlDsa65).toBeLessThan(64 * 1024);
  });
});
