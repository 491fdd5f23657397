import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPageRpcUrl, paywallPageSettingsSchema } from "../../src/paywall/page/paywallPageSettings.js";
import { PAYWALL_PAGE_CSP, paywallPageCsp } from "../../src/paywall/page/renderPaywallPage.js";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

describe("paywall.solanaRpcUrls: the Solana RPC a browser is told about", () => {
  it.each([
    ["https://api.devnet.solana.com"],
    ["https://rpc.example.com:8443/some/path"],
    ["http://127.0.0.1:8899"],
    ["http://localhost:8899/"],
    ["http://[::1]:8899"],
  ])("takes %s", (url) => {
    expect(isPageRpcUrl(url)).toBe(true);
    expect(paywallPageSettingsSchema.parse({ solanaRpcUrls: { [DEVNET]: url } }).solanaRpcUrls).toEqual({
      [DEVNET]: url,
    });
  });

  it.each([
    ["plain http to a remote host", "http://rpc.example.com"],
    ["credentials in the URL (the page shows it to everyone)", "https://user:secret@rpc.example.com"],
    ["a ; that would end the CSP directive", "https://a;script-src*.example.com/"],
    ["a comma in the host", "https://a,b.example.com/"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/plain,hi"],
    ["not a URL", "rpc.example.com"],
    ["empty", ""],
    ["a quote", "https://a'b.example.com/"],
    ["a websocket", "wss://api.devnet.solana.com"],
  ])("refuses %s", (_case, url) => {
    expect(isPageRpcUrl(url)).toBe(false);
    expect(paywallPageSettingsSchema.safeParse({ solanaRpcUrls: { [DEVNET]: url } }).success).toBe(false);
  });

  it.each([["eip155:8453"], ["solana:short"], ["solana:"], ["devnet"]])(
    "refuses a key that is not a Solana CAIP-2 network: %s",
    (network) => {
      expect(
        paywallPageSettingsSchema.safeParse({ solanaRpcUrls: { [network]: "https://api.devnet.solana.com" } })
          .success,
      ).toBe(false);
    },
  );

  it("whatever string it is given, what it takes puts one plain origin into connect-src and no other directive", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.string(),
          fc.constantFrom("https://", "http://127.0.0.1:", "https://a;b/", "https://[::1]/"),
        ),
        (url) => {
          if (!isPageRpcUrl(url)) return;
          const origin = new URL(url).origin;
          const csp = paywallPageCsp([origin]);
          expect(csp.split("; ")).toHaveLength(PAYWALL_PAGE_CSP.split("; ").length);
          expect(csp).toContain(`connect-src 'self' ${origin}; `);
          expect(origin).toMatch(/^https?:\/\/[^\s;,']+$/);
        },
      ),
    );
  });

  it("without Solana reads the page's connect-src is its own origin only", () => {
    expect(PAYWALL_PAGE_CSP).toContain("connect-src 'self'; ");
  });
});
