import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const CLI = resolve(import.meta.dirname, "../../src/cli/staking-backend.ts");
const TSX = import.meta.resolve("tsx");
const dir = mkdtempSync(join(tmpdir(), "staking-cli-"));
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Run the CLI in `dir` (so relative defaults land there); resolves on a matching stdout line or on exit. */
function run(args: string[], until?: RegExp) {
  const child = spawn(process.execPath, ["--import", TSX, CLI, ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const matched = new Promise<RegExpExecArray | null>((r) => {
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      const m = until?.exec(stdout);
      if (m) r(m);
    });
    void exited.then(() => r(null));
  });
  return { child, exited, matched, output: () => ({ stdout, stderr }) };
}

describe("staking-backend CLI", () => {
  it("--help prints the usage", async () => {
    const cli = run(["--help"]);
    expect(await cli.exited).toBe(0);
    expect(cli.output().stdout).toMatch(/Usage: staking-backend/);
    expect(cli.output().stdout).toMatch(/--data/);
  });

  it("starts on the local adapter with data/staking.sqlite by default, prints where it listens, stops on SIGTERM", async () => {
    const cli = run(
      ["--port", "0"],
      /listening on (http:\/\/127\.0\.0\.1:\d+) \(adapter local, data data\/staking\.sqlite\)/,
    );
    const match = await cli.matched;
    expect(match, JSON.stringify(cli.output())).not.toBeNull();
    const res = await fetch(`${match![1]}/api/stake`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userAddress: "0x1", amount: "10" }),
    });
    expect(res.status).toBe(200);
    expect(existsSync(join(dir, "data", "staking.sqlite"))).toBe(true);
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  it("a bad config exits 2 naming the file and the key", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "local:\n  commissionBps: 20000\n");
    const cli = run(["--config", file]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain("bad.yaml: local.commissionBps");
  });
});
