import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../../src/dev/devAccounts.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import type { PaymentPayload, PaymentRequired } from "../../src/protocol/schemas.js";
import { installTestWallet, type TestWalletOptions } from "../../src/dev/installTestWallet.js";
import { launchChromium } from "../../src/dev/launchChromium.js";
import { chromiumFor, cspRefusals, openLoggedPage } from "./support/browserPages.js";
import {
  PAYWALL_PAGE_PRICE,
  startPaywallPageStack,
  type PaywallPageStack,
} from "../../src/dev/startPaywallPageStack.js";

const chromiumPath = chromiumFor("browser paywall test");

const HOSTILE = `<script>document.title="pwned"</script> "quoted" 'single' & <img src=x onerror=alert(1)> — été ✓ \u2028`;
/** Ethereum mainnet: where the test wallet starts, so the page has to switch it to anvil. */
const MAINNET = 1;
const ANVIL = 31337;

describe.skipIf(chromiumPath === undefined)(
  "the paywall page in headless Chromium (anvil, local facilitator, gateway)",
  () => {
    let stage: PaywallPageStack;
    let browser: Browser;
    let context: BrowserContext;
    let consoleLines: string[];

    beforeAll(async () => {
      [stage, browser] = await Promise.all([
        startPaywallPageStack(
          {
            "GET /hostile": { description: HOSTILE },
            "GET /drained": { description: "Funds leave mid-request" },
            "GET /member": { description: "The members' report" },
          },
          {
            beforeAnswer: (path) => (path === "/drained" ? drain() : Promise.resolve()),
            recognized: ["GET /member"],
          },
        ),
        launchChromium(chromiumPath as string),
      ]);
    });

    afterAll(async () => {
      await browser?.close();
      await stage?.stop();
    });

    afterEach(async () => {
      await context?.close();
    });

    const openPage = async (options: { javaScriptEnabled?: boolean } = {}): Promise<Page> => {
      const opened = await openLoggedPage(browser, options);
      ({ context, consoleLines } = opened);
      return opened.page;
    };
    const wallet = (
      page: Page,
      privateKey = stage.stack.accounts.payer.privateKey,
      extra: Partial<TestWalletOptions> = {},
    ) =>
      installTestWallet(page, {
        privateKey,
        chainId: MAINNET,
        chains: [MAINNET, ANVIL],
        rpcUrl: stage.stack.rpcUrl,
        ...extra,
      });
    const balances = async () => ({
      payer: await stage.stack.balanceOf(stage.stack.accounts.payer.address),
      payee: await stage.stack.balanceOf(stage.stack.accounts.payee.address),
    });
    const status = (page: Page) => page.locator("#x402-status");
    /** Move a token balance with viem, as its owner. */
    const transfer = async (from: Hex, to: Hex, amount: bigint) => {
      const account = privateKeyToAccount(from);
      const client = createWalletClient({
        account,
        chain: stage.stack.chain,
        transport: http(stage.stack.rpcUrl),
      });
      const hash = await client.writeContract({
        address: stage.stack.token.address,
        abi: testUSDCAbi,
        functionName: "transfer",
        args: [to, amount],
      });
      await stage.stack.publicClient.waitForTransactionReceipt({ hash });
    };
    /** The drained route's payer spends its whole balance while the upstream works: after verify, before settle. */
    const DRAINED = devAccount(4);
    const drain = async () =>
      transfer(DRAINED.privateKey, devAccount(6).address, await stage.stack.balanceOf(DRAINED.address));

    it("loads the priced URL as a page, pays with the injected wallet, shows the resource; the payer paid exactly once", async () => {
      const page = await openPage();
      const testWallet = await wallet(page);
      const before = await balances();
      const settles = stage.stack.facilitator.calls.settle;
      const response = await page.goto(`${stage.url}/report`);
      expect(response?.status()).toBe(402);
      const headers = await response!.allHeaders();
      expect(headers["payment-required"]).toBeTruthy();
      expect(headers["content-type"]).toMatch(/^text\/html/);
      expect(headers["content-security-policy"]).toMatch(/script-src 'sha256-/);
      await expect(page.locator("h1").textContent()).resolves.toBe("Payment required");
      await expect(page.locator("main").textContent()).resolves.toContain("0.01 USDC");
      await expect(page.locator("main").textContent()).resolves.toContain("Local dev chain (anvil)");
      await expect(page.locator("main").textContent()).resolves.toContain(stage.stack.accounts.payee.address);

      const paying = page.waitForRequest((sent) => sent.headers()["payment-signature"] !== undefined);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="paid"]').waitFor();
      await expect(page.locator("#x402-body").textContent()).resolves.toContain("Staking report");
      // The x402 V2 payload the official @x402/evm client makes: the offer's resource and option, an EIP-3009 authorization.
      const offer = decodeBase64Json(headers["payment-required"] as string) as PaymentRequired;
      const payment = decodeBase64Json(
        (await paying).headers()["payment-signature"] as string,
      ) as PaymentPayload;
      expect(Object.keys(payment).sort()).toEqual(["accepted", "payload", "resource", "x402Version"]);
      expect(payment).toMatchObject({ x402Version: 2, resource: offer.resource, accepted: offer.accepts[0] });
      expect(payment.payload).toMatchObject({
        signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
        authorization: {
          from: testWallet.address,
          to: stage.stack.accounts.payee.address,
          value: PAYWALL_PAGE_PRICE.toString(),
          validAfter: "0",
          nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        },
      });
      await expect(status(page).textContent()).resolves.toMatch(
        /Paid 0\.01 USDC .*Transaction 0x[0-9a-f]{64}/,
      );

      const after = await balances();
      expect(after.payer).toBe(before.payer - PAYWALL_PAGE_PRICE);
      expect(after.payee).toBe(before.payee + PAYWALL_PAGE_PRICE);
      expect(stage.stack.facilitator.calls.settle).toBe(settles + 1);
      const methods = testWallet.requests.map((request) => request.method);
      expect(methods.filter((method) => method === "eth_signTypedData_v4")).toHaveLength(1);
      // The wallet started on mainnet: the page switched it to the offer's chain before signing.
      expect(testWallet.requests).toContainEqual({
        method: "wallet_switchEthereumChain",
        params: [{ chainId: `0x${ANVIL.toString(16)}` }],
      });
      expect(cspRefusals(consoleLines)).toEqual([]);
    });

    it("on a recognition route it offers sign-in: an unrecorded payer is told so, a recorded one gets the resource without paying", async () => {
      const first = await openPage();
      const stranger = await wallet(first, devAccount(5).privateKey);
      await first.goto(`${stage.url}/member`);
      await first.locator("#x402-sign-in").click();
      await first.locator('#x402-status[data-state="error"]').waitFor();
      await expect(status(first).getAttribute("data-error")).resolves.toBe("not_recognized");
      expect(stranger.requests.map((request) => request.method)).toContain("personal_sign");
      await first.context().close();

      // Recorded on the stand-in (as the gateway's paid event for this route would record it).
      stage.stack.layer2.record(stage.stack.accounts.payer.address);
      const before = await balances();
      const settles = stage.stack.facilitator.calls.settle;
      const page = await openPage();
      const testWallet = await wallet(page);
      await page.goto(`${stage.url}/member`);
      await expect(page.locator("#x402-sign-in").isVisible()).resolves.toBe(true);
      const signing = page.waitForRequest((sent) => sent.headers()["sign-in-with-x"] !== undefined);
      await page.locator("#x402-sign-in").click();
      await page.locator('#x402-status[data-state="signed_in"]').waitFor();
      await expect(page.locator("h1").textContent()).resolves.toBe("Signed in");
      await expect(page.locator("#x402-body").textContent()).resolves.toContain("Staking report");
      const sent = (await signing).headers();
      expect(sent["payment-signature"]).toBeUndefined();
      expect(decodeBase64Json(sent["sign-in-with-x"] as string)).toMatchObject({
        address: testWallet.address, // EIP-55, as the message names it
        type: "eip191",
        chainId: `eip155:${ANVIL}`,
      });
      const methods = testWallet.requests.map((request) => request.method);
      expect(methods).toContain("personal_sign");
      expect(methods).not.toContain("eth_signTypedData_v4");
      expect(await balances()).toEqual(before);
      expect(stage.stack.facilitator.calls.settle).toBe(settles);
      expect(cspRefusals(consoleLines)).toEqual([]);

      // A route without recognition offers no sign-in.
      await page.goto(`${stage.url}/report`);
      await expect(page.locator("#x402-sign-in").isVisible()).resolves.toBe(false);
    });

    it("a rejected signature says so; nothing is verified or paid", async () => {
      const page = await openPage();
      await wallet(page, undefined, { rejectSignatures: true });
      const before = await balances();
      const verifies = stage.stack.facilitator.calls.verify;
      await page.goto(`${stage.url}/report`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="error"]').waitFor();
      await expect(status(page).getAttribute("data-error")).resolves.toBe("rejected");
      await expect(status(page).textContent()).resolves.toContain("You rejected the request");
      await expect(page.locator("#x402-pay").isEnabled()).resolves.toBe(true);
      expect(stage.stack.facilitator.calls.verify).toBe(verifies);
      expect(await balances()).toEqual(before);
    });

    it.each([
      [
        "a wallet that cannot switch to the offer's chain",
        "wrong_network",
        "Local dev chain (anvil)",
        { chains: [MAINNET] },
        undefined,
      ],
      ["an account without the tokens", "insufficient_balance", "holds 0 USDC", {}, devAccount(5).privateKey],
    ] as const)("%s: %s, nothing signed", async (_case, kind, says, walletOptions, key) => {
      const page = await openPage();
      const testWallet = await wallet(page, key, { ...walletOptions });
      await page.goto(`${stage.url}/report`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="error"]').waitFor();
      await expect(status(page).getAttribute("data-error")).resolves.toBe(kind);
      await expect(status(page).textContent()).resolves.toContain(says);
      expect(testWallet.requests.map((request) => request.method)).not.toContain("eth_signTypedData_v4");
    });

    it("funds gone between verification and settlement: settlement failed, the resource withheld, the payee not paid", async () => {
      await transfer(stage.stack.accounts.payer.privateKey, DRAINED.address, PAYWALL_PAGE_PRICE);
      const page = await openPage();
      await wallet(page, DRAINED.privateKey);
      const payee = await stage.stack.balanceOf(stage.stack.accounts.payee.address);
      const verifies = stage.stack.facilitator.calls.verify;
      await page.goto(`${stage.url}/drained`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="error"]').waitFor();
      await expect(status(page).getAttribute("data-error")).resolves.toBe("settlement_failed");
      await expect(page.locator("#x402-result").isVisible()).resolves.toBe(false);
      expect(stage.stack.facilitator.calls.verify).toBe(verifies + 1);
      expect(await stage.stack.balanceOf(stage.stack.accounts.payee.address)).toBe(payee);
      expect(await stage.stack.balanceOf(DRAINED.address)).toBe(0n);
    });

    it("no wallet in the browser: says so", async () => {
      const page = await openPage();
      await page.goto(`${stage.url}/report`);
      await page.locator("#x402-pay").click();
      await expect(status(page).getAttribute("data-error")).resolves.toBe("no_wallet");
    });

    it("without JavaScript the page still says what it is for, and hides the pay button", async () => {
      const page = await openPage({ javaScriptEnabled: false });
      const response = await page.goto(`${stage.url}/report`);
      expect(response?.status()).toBe(402);
      const noscript = page.locator("#x402-noscript");
      await expect(noscript.isVisible()).resolves.toBe(true);
      await expect(noscript.textContent()).resolves.toMatch(
        /x402 payment of 0\.01 USDC on Local dev chain \(anvil\) for Today's staking report/,
      );
      await expect(page.locator("#x402-pay").isVisible()).resolves.toBe(false);
    });

    it("a hostile description is shown as text: no markup of it runs or renders", async () => {
      const page = await openPage();
      await page.goto(`${stage.url}/hostile`);
      await expect(page.locator("dd").first().textContent()).resolves.toBe(HOSTILE);
      await expect(page.title()).resolves.toBe(`Payment required: ${HOSTILE}`);
      await expect(page.locator("main img").count()).resolves.toBe(0);
      await expect(page.locator("#x402-pay").isVisible()).resolves.toBe(true);
    });

    it("the CSP blocks an inline script the page did not ship (and without the header the same script runs)", async () => {
      const injected = "<script>document.title = 'injected ran'</script>";
      const load = async (keepPolicy: boolean) => {
        const page = await openPage();
        await page.route(`${stage.url}/report`, async (route) => {
          const response = await route.fetch();
          const headers = { ...response.headers() };
          if (!keepPolicy) delete headers["content-security-policy"];
          const body = (await response.text()).replace("</main>", `</main>${injected}`);
          await route.fulfill({ response, headers, body });
        });
        await page.goto(`${stage.url}/report`);
        await page.locator("#x402-pay").waitFor();
        return page;
      };
      const strict = await load(true);
      await expect(strict.title()).resolves.toBe("Payment required: Today's staking report");
      await expect(strict.locator("#x402-pay").isVisible()).resolves.toBe(true);
      expect(consoleLines.some((line) => /Content Security Policy/i.test(line))).toBe(true);
      await context.close();
      const open = await load(false);
      await expect(open.title()).resolves.toBe("injected ran");
    });

    it("API clients on the same URL still get the JSON 402", async () => {
      const response = await fetch(`${stage.url}/report`, { headers: { accept: "application/json" } });
      expect(response.status).toBe(402);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("payment-required")).toBeTruthy();
    });
  },
);
