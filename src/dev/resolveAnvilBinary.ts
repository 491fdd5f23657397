import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
};

/**
 * Path of the anvil executable installed by the npm package `@foundry-rs/anvil` (its per-platform
 * optional dependency). Spawning it directly, not through `bin.mjs`, lets `stop()` signal anvil itself.
 */
export function resolveAnvilBinary(): string {
  const require = createRequire(import.meta.url);
  const executable = process.platform === "win32" ? "anvil.exe" : "anvil";
  const platformPackage = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  const candidates: string[] = [];
  if (platformPackage !== undefined) {
    try {
      candidates.push(join(dirname(require.resolve(`${platformPackage}/package.json`)), "bin", executable));
    } catch {
      // not installed: fall through to the wrapper package's own dist/ folder
    }
  }
  try {
    candidates.push(
      join(dirname(require.resolve("@foundry-rs/anvil/package.json")), "..", "dist", executable),
    );
  } catch {
    // wrapper not installed either
  }
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      `anvil binary not found for ${process.platform}-${process.arch}; run \`npm install\` (needs @foundry-rs/anvil)`,
    );
  }
  return found;
}
