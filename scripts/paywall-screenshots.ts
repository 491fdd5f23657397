/**
 * Retake the paywall page's screenshots in docs/ (paywall-before.png, paywall-after.png): the local stack
 * (anvil, the local facilitator, the gateway), the system Chromium, and a test wallet with anvil's payer key.
 * Run: npx tsx scripts/paywall-screenshots.ts
 */
import { fileURLToPath } from "node:url";
import { installTestWallet } from "../src/dev/installTestWallet.js";
import { findChromium, launchChromium } from "../src/dev/launchChromium.js";
import { startPaywallPageStack } from "../src/dev/startPaywallPageStack.js";

const chromiumPath = findChromium();
if (chromiumPath === undefined) {
  console.error("no Chromium found: apt-get install chromium, or set CHROMIUM_PATH");
  process.exit(1);
}
const docs = (name: string) => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));
const stage = await startPaywallPageStack();
const browser = await launchChromium(chromiumPath);
try {
  const page = await browser.newPage({ viewport: { width: 760, height: 620 } });
  await installTestWallet(page, {
    privateKey: stage.stack.accounts.payer.privateKey,
    chainId: stage.stack.chain.id,
    chains: [stage.stack.chain.id],
    rpcUrl: stage.stack.rpcUrl,
  });
  await page.goto(`${stage.url}/report`);
  await page.screenshot({ path: docs("paywall-before.png") });
  await page.locator("#x402-pay").click();
  await page.locator('#x402-status[data-state="paid"]').waitFor();
  await page.screenshot({ path: docs("paywall-after.png") });
  console.log("wrote docs/paywall-before.png and docs/paywall-after.png");
} finally {
  await browser.close();
  await stage.stop();
}
