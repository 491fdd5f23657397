import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installTestWallet } from "../../src/dev/installTestWallet.js";
import { findChromium, launchChromium } from "../../src/dev/launchChromium.js";
import {
  PAYWALL_PAGE_PRICE,
  startPaywallPageStack,
  type PaywallPageStack,
} from "../../src/dev/startPaywallPageStack.js";

const chromiumPath = findChromium();

/** A browser pays once on the paywall page, then reloads: served from the pass's cookie, no second payment. */
describe.skipIf(chromiumPath === undefined)(
  "a pass in headless Chromium (anvil, local facilitator, gateway)",
  () => {
    let stage: PaywallPageStack;
    let browser: Browser;
    let context: BrowserContext;

    beforeAll(async () => {
      [stage, browser] = await Promise.all([
        startPaywallPageStack(
          { "GET /pass/*": { description: "Three reports for one payment", pass: { requests: 3 } } },
          { passes: { secret: "a-pass-secret-of-at-least-32-characters" } },
        ),
        launchChromium(chromiumPath as string),
      ]);
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await stage?.stop();
    });

    it("pays once, reloads twice on the cookie, then meets the paywall again; the payer paid exactly once", async () => {
      context = await browser.newContext();
      const page = await context.newPage();
      await installTestWallet(page, {
        privateKey: stage.stack.accounts.payer.privateKey,
        chainId: 31337,
        chains: [31337],
        rpcUrl: stage.stack.rpcUrl,
      });
      const payer = stage.stack.accounts.payer.address;
      const before = await stage.stack.balanceOf(payer);
      const settles = stage.stack.facilitator.calls.settle;

      const first = await page.goto(`${stage.url}/pass/report`);
      expect(first?.status()).toBe(402);
      await expect(page.locator("main").textContent()).resolves.toContain("3 requests within 30 days");
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="paid"]').waitFor();
      await expect(page.locator("#x402-body").textContent()).resolves.toContain("Staking report");

      const [cookie] = await context.cookies(`${stage.url}/pass/report`);
      expect(cookie).toMatchObject({ name: "x402-pass", path: "/pass", httpOnly: true, sameSite: "Strict" });

      for (const path of ["/pass/report", "/pass/other"]) {
        const again = await page.goto(`${stage.url}${path}`);
        expect(again?.status()).toBe(200);
        expect(again?.headers()["payment-response"]).toBeUndefined();
        await expect(page.locator("body").textContent()).resolves.toContain("Staking report");
      }
      const spent = await page.reload();
      expect(spent?.status()).toBe(402);
      await expect(page.locator("h1").textContent()).resolves.toBe("Payment required");

      expect(stage.stack.facilitator.calls.settle).toBe(settles + 1);
      expect(before - (await stage.stack.balanceOf(payer))).toBe(PAYWALL_PAGE_PRICE);
    }, 120_000);
  },
);
