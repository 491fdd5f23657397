import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { findChromium } from "../../../src/dev/launchChromium.js";

/** The system Chromium, or undefined (said once on the console, naming the test that does not run). */
export function chromiumFor(what: string): string | undefined {
  const path = findChromium();
  if (path === undefined) {
    console.log(`${what} did not run: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  return path;
}

export interface LoggedPage {
  context: BrowserContext;
  page: Page;
  /** What the page wrote on its console (`type: text`), the CSP's refusals among them. */
  consoleLines: string[];
}

/** A page in a fresh context whose console lines are kept. */
export async function openLoggedPage(
  browser: Browser,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<LoggedPage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (message: ConsoleMessage) => consoleLines.push(`${message.type()}: ${message.text()}`));
  return { context, page, consoleLines };
}

/** The console lines that are Content Security Policy refusals. */
export const cspRefusals = (lines: readonly string[]): string[] =>
  lines.filter((line) => /Content Security Policy/i.test(line));
