import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptWeights, weightOf } from "../../src/protocol/acceptWeights.js";
import { prefersHtml } from "../../src/protocol/prefersHtml.js";

const CHROME = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const FIREFOX = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const SAFARI = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("the paywall page or the API 402, from Accept", () => {
  it.each<[string | undefined, boolean]>([
    [CHROME, true],
    [FIREFOX, true],
    [SAFARI, true],
    ["text/html", true],
    ["TEXT/HTML", true],
    ["text/*", true],
    ["text/html;level=1", true],
    [undefined, false],
    ["", false],
    ["*/*", false],
    ["application/json", false],
    ["application/json, text/plain, */*", false],
    ["text/html, application/json", false],
    ["application/json;q=0.9, text/html", true],
    ["text/html;q=0.5, application/json;q=0.6", false],
    ["text/html;q=0.6, application/json;q=0.5", true],
    ["text/html;q=0.5, */*;q=0.5", false],
    ["text/html;q=0.51, */*;q=0.5", true],
    ["text/html, application/*", false],
    ["text/html, application/*;q=0.9", true],
    ["text/html, application/x402+cbor", false],
    ["text/html;q=0.9, application/x402+cbor;q=0.8", true],
    ["application/x402+cbor", false],
    ["text/html;q=0", false],
    ["text/html;q=0, */*", false],
    ["text/html;q=bogus", false],
    ["text/html;q=1.5", false],
    ["text/html;q=0.0001", false],
    ["text/plain", false],
    [",,;,text/html", true],
    ["text/html;q=0.1, text/html;q=0.9, application/json;q=0.5", true],
  ])("Accept %j → page %s", (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });

  const qvalue = fc
    .integer({ min: 0, max: 1000 })
    .map((n) => ({ text: (n / 1000).toFixed(3), value: n / 1000 }));

  it("property: any Accept value gives an answer and never throws", () => {
    fc.assert(fc.property(fc.string(), (accept) => typeof prefersHtml(accept) === "boolean"));
  });

  it("property: HTML against JSON in either order: the page exactly when HTML's q-value is higher and above 0", () => {
    fc.assert(
      fc.property(qvalue, qvalue, fc.boolean(), (html, json, htmlFirst) => {
        const parts = [`text/html;q=${html.text}`, `application/json;q=${json.text}`];
        const accept = (htmlFirst ? parts : parts.reverse()).join(", ");
        expect(prefersHtml(accept)).toBe(html.value > 0 && html.value > json.value);
      }),
    );
  });

  it("property: CBOR named at a q-value at least HTML's keeps the API answer", () => {
    fc.assert(
      fc.property(qvalue, qvalue, (html, cbor) => {
        fc.pre(cbor.value >= html.value);
        expect(prefersHtml(`text/html;q=${html.text}, application/x402+cbor;q=${cbor.text}`)).toBe(false);
      }),
    );
  });

  it("property: a range's own q-value beats a wildcard's, whatever the order", () => {
    fc.assert(
      fc.property(qvalue, qvalue, (exact, wildcard) => {
        const weights = acceptWeights(`*/*;q=${wildcard.text}, application/json;q=${exact.text}`);
        expect(weightOf(weights, "application/json")).toBe(exact.value);
        expect(weightOf(weights, "text/html")).toBe(wildcard.value);
      }),
    );
  });

  it("property: an Accept without text/html, text/* or */* never gets the page", () => {
    fc.assert(
      fc.property(fc.string(), (accept) => {
        fc.pre(!/text\/(html|\*)|\*\/\*/i.test(accept));
        expect(prefersHtml(accept)).toBe(false);
      }),
    );
  });
});
