import { describe, expect, it } from "vitest";
import { PAYWALL_PAGE_SCRIPT } from "../../src/paywall/page/paywallPageScript.js";
import { AUTHORIZATION_FIELDS } from "../../src/protocol/eip3009AuthorizationFields.js";

describe("the paywall page's script (run in Chromium by test/e2e/browserPaywall.test.ts)", () => {
  it("is valid JavaScript where no browser is at hand", () => {
    expect(() => new Function(PAYWALL_PAGE_SCRIPT)).not.toThrow();
    expect(() => new Function(`${PAYWALL_PAGE_SCRIPT} }`)).toThrow(SyntaxError);
  });

  it("loads nothing from elsewhere: its requests (pay, sign in) go to the page's own URL, Solana reads to the RPC the server named", () => {
    expect(PAYWALL_PAGE_SCRIPT).not.toMatch(/https?:|import\(|importScripts|<script|eval\(|new Function/);
    expect(PAYWALL_PAGE_SCRIPT.match(/fetch\([^,]*/g)).toEqual([
      // data.solana.rpcUrl: `paywall.solanaRpcUrls` (its origin alone joins the page's connect-src)
      "fetch(solana.rpcUrl",
      "fetch(window.location.href",
      "fetch(window.location.href",
    ]);
    expect(PAYWALL_PAGE_SCRIPT).toContain("var solana = data.solana;");
    expect(PAYWALL_PAGE_SCRIPT).toContain('credentials: "omit"');
  });

  it("signs the EIP-3009 fields the official client signs, with eth_signTypedData_v4", () => {
    expect(PAYWALL_PAGE_SCRIPT).toContain(
      `TransferWithAuthorization: ${JSON.stringify(AUTHORIZATION_FIELDS)}`,
    );
    expect(PAYWALL_PAGE_SCRIPT).toContain('"eth_signTypedData_v4"');
    expect(PAYWALL_PAGE_SCRIPT).toContain('"PAYMENT-SIGNATURE": header');
  });
});
