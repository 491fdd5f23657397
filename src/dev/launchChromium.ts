import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { Browser } from "playwright-core";

/** Where Debian's `chromium` package (and most distributions') puts the browser, then `PATH`. */
const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The Chromium to drive: `CHROMIUM_PATH` when set, else the system's `chromium`; undefined when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const names = ["chromium", "chromium-browser"];
  const onPath = (env.PATH ?? "").split(delimiter).flatMap((dir) => names.map((name) => join(dir, name)));
  const candidates = env.CHROMIUM_PATH ? [env.CHROMIUM_PATH] : [...CANDIDATES, ...onPath];
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Launch the system Chromium headless through playwright-core, with a fresh profile (playwright makes a new
 * temporary user-data-dir per launch) and nothing that reaches the internet on its own.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
