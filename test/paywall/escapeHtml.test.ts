import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, jsonForScript } from "../../src/paywall/page/escapeHtml.js";
import { renderPaywallPage } from "../../src/paywall/page/renderPaywallPage.js";
import { PAYWALL_PAGE_SCRIPT } from "../../src/paywall/page/paywallPageScript.js";
import type { Offer } from "../../src/paywall/responses/respond.js";

/** Values an attacker (or a careless config) could put where the page shows config or request text. */
const HOSTILE: readonly string[] = [
  "<script>alert(1)</script>",
  "</script><script>alert(1)</script>",
  "<!--<script>",
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  "&lt;already escaped&gt; &amp;",
  "javascript:alert(1)",
  "\u2028\u2029 line separators",
  "été ✓ 🚀 中文 עברית",
  "\u0000 nul and \u001b escape",
  "<style>body{display:none}</style>",
  "]]><![CDATA[",
  "{{constructor.constructor('alert(1)')()}}",
];

const offerWith = (text: string): Offer => ({
  resource: {
    url: `http://127.0.0.1:8080/report?q=${text}`,
    description: text,
    mimeType: "application/json",
  },
  accepts: [
    {
      scheme: "exact",
      network: "eip155:84532",
      amount: "10000",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: text,
      maxTimeoutSeconds: 300,
      extra: { name: text, version: "2" },
    },
  ],
});

/** The page's data block, read back as the browser's script reads it. */
function dataOf(html: string): { paymentRequired: { resource: { description: string; url: string } } } {
  const match = /<script type="application\/json" id="x402-offer">([^<]*)<\/script>/.exec(html);
  if (match === null) throw new Error("no data block");
  return JSON.parse(match[1] as string) as never;
}

describe("HTML escaping of everything the paywall page shows", () => {
  it.each(HOSTILE)("escapeHtml(%j) keeps no markup character", (text) => {
    const escaped = escapeHtml(text);
    expect(escaped).not.toMatch(/[<>"']/);
    expect(escaped.replace(/&(lt|gt|quot|#39|amp);/g, "")).not.toContain("&lt");
  });

  it("escapes each markup character to its entity", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  it.each(HOSTILE)("jsonForScript(%j) cannot close its script block and reads back the same", (text) => {
    const json = jsonForScript({ text });
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual({ text });
  });

  it.each(HOSTILE)(
    "a page whose description, URL, payee, token name and app name are %j has only its own two scripts",
    (text) => {
      const html = renderPaywallPage(offerWith(text), {
        index: 0,
        price: text,
        network: text,
        appName: text,
      });
      expect(html.match(/<script/g)).toHaveLength(2);
      expect(html.match(/<\/script>/g)).toHaveLength(2);
      expect(html.match(/<style>/g)).toHaveLength(1);
      expect(html).not.toContain("<img");
      expect(html).toContain(`<script>${PAYWALL_PAGE_SCRIPT}</script>`);
      expect(dataOf(html).paymentRequired.resource.description).toBe(text);
    },
  );

  it("property: any text, escaped, unescapes to itself and holds no markup character", () => {
    const unescape = (text: string) =>
      text
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, "&");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(unescape(escaped)).toBe(text);
      }),
    );
  });

  it("property: any description or app name leaves the page's structure alone and reaches the script intact", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string(), (description, appName) => {
        const html = renderPaywallPage(offerWith(description), {
          index: 0,
          price: "0.01 USDC",
          network: "Base",
          appName,
        });
        expect(html.match(/<script/g)).toHaveLength(2);
        expect(html.match(/<\/main>/g)).toHaveLength(1);
        expect(dataOf(html).paymentRequired.resource.description).toBe(description);
      }),
    );
  });
});
