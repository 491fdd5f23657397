import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = "config/gateway.example.yaml";
const run = promisify(execFile);

/** What a deployment sets: the variables the example's header lists (`#   NAME  what it is`). */
const DEPLOYMENT = {
  X402_FACILITATOR_URL: "https://facilitator.example.com",
  X402_PAY_TO: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  X402_PUBLIC_URL: "https://api.example.com",
  UPSTREAM_URL: "https://api.internal.example.com",
  REDIS_URL: "rediss://redis.internal.example.com:6380",
};

/** `x402-gateway check-config` on the example, as an operator runs it: exit code and what it printed. */
async function checkConfig(env: Record<string, string>, ...args: string[]) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !(name in DEPLOYMENT) && !name.startsWith("X402_")),
  );
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "src/cli/x402-gateway.ts", "check-config", EXAMPLE, ...args],
      { cwd: ROOT, env: { ...base, ...env } },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the production config example that ships with the package", () => {
  it("passes check-config with its variables set, on several workers (a shared Redis ledger)", async () => {
    const checked = await checkConfig(DEPLOYMENT, "--workers", "4");
    expect(checked.output).toMatch(/ok — 3 priced routes, 1 upstream, listening on http:\/\/0\.0\.0\.0:8402/);
    expect(checked.output).not.toMatch(/warning/);
    expect(checked.code).toBe(0);
  });

  it("without them, names every variable its header lists, and nothing else", async () => {
    const listed = [
      ...readFileSync(`${ROOT}${EXAMPLE}`, "utf8").matchAll(/^#\s{3}([A-Z][A-Z0-9_]+)\s/gm),
    ].map(([, name]) => name);
    expect(listed.sort()).toEqual(Object.keys(DEPLOYMENT).sort());
    const checked = await checkConfig({});
    const missing = [...checked.output.matchAll(/environment variable ([A-Z0-9_]+) is not set/g)].map(
      ([, name]) => name,
    );
    expect(missing.sort()).toEqual(listed.sort());
    expect(checked.code).toBe(1);
  });

  it("is a production shape: TLS-terminating proxy trusted, https facilitator, Redis ledger, a settle-first route", () => {
    const text = readFileSync(`${ROOT}${EXAMPLE}`, "utf8");
    expect(text).toMatch(/^trustProxy:\n {2}- \S+/m);
    expect(text).toMatch(/^ {2}url: \$\{X402_FACILITATOR_URL\}$/m);
    expect(text).toMatch(/^ledger:\n {2}type: redis$/m);
    expect(text).toMatch(/settle: before/);
    expect(text).not.toMatch(/eip155:31337|127\.0\.0\.1/);
  });
});
