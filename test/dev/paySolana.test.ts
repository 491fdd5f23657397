import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { solanaDevAccount } from "../../src/dev/solanaDevAccounts.js";
import { runCli } from "../cli/support/runCli.js";

describe("npm run pay -- --solana: refusals before anything is signed", () => {
  it.each([
    ["no --keypair", [] as string[], "http://127.0.0.1:9/x", /--solana needs --keypair/],
    [
      "a --max-amount that is not an integer",
      ["--max-amount", "1.5"],
      "http://127.0.0.1:9/x",
      /--max-amount/,
    ],
    [
      "plain http to a host that is not loopback",
      [],
      "http://example.com/x",
      /https:\/\/ or to loopback only/,
    ],
    ["a keypair file that is not 64 bytes", ["--short"], "http://127.0.0.1:9/x", /a JSON array of 64 bytes/],
  ])("%s: exit 2", async (_name, flags, url, message) => {
    const dir = await mkdtemp(join(tmpdir(), "pay-solana-"));
    const keypair = join(dir, "payer.json");
    const account = await solanaDevAccount("payer");
    const short = flags.includes("--short");
    await writeFile(keypair, JSON.stringify(short ? [1, 2, 3] : [...account.keypairBytes]), { mode: 0o600 });
    const args = ["--solana", ...flags.filter((flag) => flag !== "--short")];
    if (!/no --keypair/.test(_name)) args.push("--keypair", keypair);
    const result = await runCli("src/dev/pay.ts", [...args, url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toMatch(/payer:/);
  });
});
