import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getBase64Encoder, getTransactionDecoder } from "@solana/kit";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import type { PaymentPayload, PaymentRequired } from "../../src/protocol/schemas.js";
import {
  installSolanaTestWallet,
  type SolanaTestWalletOptions,
} from "../../src/dev/installSolanaTestWallet.js";
import { installTestWallet } from "../../src/dev/installTestWallet.js";
import { launchChromium } from "../../src/dev/launchChromium.js";
import { chromiumFor, cspRefusals, openLoggedPage } from "./support/browserPages.js";
import { solanaDevAccount } from "../../src/dev/solanaDevAccounts.js";
import { LOCAL_SOLANA_NETWORK, type RunningSolanaEngine } from "../../src/dev/startSolanaEngine.js";
import { startPaywallPageStack, type PaywallPageStack } from "../../src/dev/startPaywallPageStack.js";

const chromiumPath = chromiumFor("browser Solana paywall test");

/** $0.01 in USDC's smallest unit (6 decimals). */
const PRICE = 10_000n;

describe.skipIf(chromiumPath === undefined)(
  "the paywall page pays with a Wallet Standard Solana wallet in headless Chromium (LOCAL Solana engine)",
  () => {
    let stage: PaywallPageStack;
    let solana: RunningSolanaEngine;
    let browser: Browser;
    let context: BrowserContext;
    let consoleLines: string[];

    beforeAll(async () => {
      // The engine's network and payee are fixed (dev accounts from public phrases): known before it starts.
      const payee = (await solanaDevAccount("payee")).address;
      const sol = { network: LOCAL_SOLANA_NETWORK, payTo: payee, price: "$0.01" };
      [stage, browser] = await Promise.all([
        startPaywallPageStack(
          {
            "GET /sol": { ...sol, description: "The Solana report" },
            "GET /either": { description: "Either chain", accepts: [sol] },
          },
          { solana: true },
        ),
        launchChromium(chromiumPath as string),
      ]);
      solana = stage.stack.solana!;
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await stage?.stop();
    });

    afterEach(async () => {
      await context?.close();
    });

    const openPage = async (): Promise<Page> => {
      const opened = await openLoggedPage(browser);
      ({ context, consoleLines } = opened);
      return opened.page;
    };
    const wallet = (page: Page, options: Partial<SolanaTestWalletOptions> = {}) =>
      installSolanaTestWallet(page, { signer: solana.accounts.payer.signer, ...options });
    const balances = async () => ({
      payer: await solana.tokenBalance(solana.accounts.payer.address),
      payee: await solana.tokenBalance(solana.accounts.payee.address),
    });
    const status = (page: Page) => page.locator("#x402-status");

    it("a Solana-only route: the wallet signs the official exact transaction, the resource shows, the payer paid exactly once", async () => {
      const page = await openPage();
      const testWallet = await wallet(page);
      const before = await balances();
      const settles = stage.stack.facilitator.calls.settle;
      const response = await page.goto(`${stage.url}/sol`);
      expect(response?.status()).toBe(402);
      const headers = await response!.allHeaders();
      // The page may read the engine and nothing else: its origin joins connect-src.
      expect(headers["content-security-policy"]).toContain(`connect-src 'self' ${solana.rpcUrl}`);
      await expect(page.locator("main").textContent()).resolves.toContain("0.01 USDC");
      await expect(page.locator("main").textContent()).resolves.toContain("Solana devnet");
      await expect(page.locator("main").textContent()).resolves.toContain(solana.accounts.payee.address);

      const paying = page.waitForRequest((sent) => sent.headers()["payment-signature"] !== undefined);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="paid"]').waitFor({ timeout: 60_000 });
      await expect(page.locator("#x402-body").textContent()).resolves.toContain("Staking report");
      await expect(status(page).textContent()).resolves.toMatch(
        /Paid 0\.01 USDC on Solana devnet\. Transaction [1-9A-HJ-NP-Za-km-z]{64,88}\./,
      );

      const offer = decodeBase64Json(headers["payment-required"] as string) as PaymentRequired;
      const payment = decodeBase64Json(
        (await paying).headers()["payment-signature"] as string,
      ) as PaymentPayload;
      expect(Object.keys(payment).sort()).toEqual(["accepted", "payload", "resource", "x402Version"]);
      expect(payment).toMatchObject({ x402Version: 2, resource: offer.resource, accepted: offer.accepts[0] });
      expect(Object.keys(payment.payload)).toEqual(["transaction"]);
      // Signed by the payer only; the fee payer's slot left to the facilitator.
      const sent = getTransactionDecoder().decode(
        getBase64Encoder().encode(payment.payload.transaction as string),
      );
      expect(Object.keys(sent.signatures).sort()).toEqual(
        [solana.accounts.feePayer.address, solana.accounts.payer.address].sort(),
      );
      expect(sent.signatures[solana.accounts.feePayer.address]).toBeNull();
      expect(sent.signatures[solana.accounts.payer.address]).not.toBeNull();

      const after = await balances();
      expect(after.payer).toBe(before.payer - PRICE);
      expect(after.payee).toBe(before.payee + PRICE);
      expect(stage.stack.facilitator.calls.settle).toBe(settles + 1);
      expect(testWallet.requests.map((request) => request.method)).toEqual(["connect", "signTransaction"]);
      expect(testWallet.requests[1]?.chain).toBe("solana:devnet");
      expect(cspRefusals(consoleLines)).toEqual([]);
    });

    it("an offer with EVM and Solana options, only a Solana wallet in the browser: it pays the Solana option", async () => {
      const page = await openPage();
      await wallet(page, { registerLate: true }); // registers through wallet-standard:register-wallet
      const before = await balances();
      const response = await page.goto(`${stage.url}/either`);
      const offer = decodeBase64Json(
        (await response!.allHeaders())["payment-required"] as string,
      ) as PaymentRequired;
      expect(offer.accepts.map((option) => option.network)).toEqual([stage.stack.network, solana.network]);
      const paying = page.waitForRequest((sent) => sent.headers()["payment-signature"] !== undefined);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="paid"]').waitFor({ timeout: 60_000 });
      const payment = decodeBase64Json(
        (await paying).headers()["payment-signature"] as string,
      ) as PaymentPayload;
      expect(payment.accepted).toEqual(offer.accepts[1]);
      const after = await balances();
      expect(after.payer).toBe(before.payer - PRICE);
      expect(after.payee).toBe(before.payee + PRICE);
    });

    it("the same offer with both wallets: the offer's order decides (its EVM option first), Solana balances untouched", async () => {
      const page = await openPage();
      const solanaWallet = await wallet(page);
      await installTestWallet(page, {
        privateKey: stage.stack.accounts.payer.privateKey,
        chainId: 31337,
        chains: [31337],
        rpcUrl: stage.stack.rpcUrl,
      });
      const before = await balances();
      await page.goto(`${stage.url}/either`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="paid"]').waitFor({ timeout: 60_000 });
      expect(solanaWallet.requests).toEqual([]);
      expect(await balances()).toEqual(before);
    });

    it("a rejected signature says so; nothing is verified or paid", async () => {
      const page = await openPage();
      const testWallet = await wallet(page, { rejectSignatures: true });
      const before = await balances();
      const verifies = stage.stack.facilitator.calls.verify;
      await page.goto(`${stage.url}/sol`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="error"]').waitFor({ timeout: 60_000 });
      await expect(status(page).getAttribute("data-error")).resolves.toBe("rejected");
      await expect(page.locator("#x402-pay").isEnabled()).resolves.toBe(true);
      expect(testWallet.requests.map((request) => request.method)).toEqual(["connect", "signTransaction"]);
      expect(stage.stack.facilitator.calls.verify).toBe(verifies);
      expect(await balances()).toEqual(before);
    });

    it.each([
      [
        "a wallet without the offer's chain",
        "wrong_network",
        "Solana devnet",
        { chains: ["solana:mainnet"] },
      ],
      ["an account without the tokens", "insufficient_balance", "holds 0 USDC", { account: "mintAuthority" }],
    ] as const)("%s: %s, nothing signed", async (_case, kind, says, options) => {
      const page = await openPage();
      const signer =
        "account" in options
          ? (await solanaDevAccount(options.account)).signer
          : solana.accounts.payer.signer;
      const testWallet = await wallet(page, {
        signer,
        ...("chains" in options ? { chains: options.chains } : {}),
      });
      await page.goto(`${stage.url}/sol`);
      await page.locator("#x402-pay").click();
      await page.locator('#x402-status[data-state="error"]').waitFor({ timeout: 60_000 });
      await expect(status(page).getAttribute("data-error")).resolves.toBe(kind);
      await expect(status(page).textContent()).resolves.toContain(says);
      expect(testWallet.requests.map((request) => request.method)).not.toContain("signTransaction");
    });

    it("no wallet in the browser on a Solana-only route: says so, naming a Solana wallet", async () => {
      const page = await openPage();
      await page.goto(`${stage.url}/sol`);
      await page.locator("#x402-pay").click();
      await expect(status(page).getAttribute("data-error")).resolves.toBe("no_wallet");
      await expect(status(page).textContent()).resolves.toContain("Solana wallet");
    });
  },
);
