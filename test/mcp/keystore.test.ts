import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { UnpayableError } from "../../src/mcp/errors.js";
import { loadKeystoreAccount } from "../../src/mcp/loadKeystoreAccount.js";
import { runKeystoreCommand } from "../../src/mcp/runKeystoreCommand.js";
import { ROOT, collect } from "../cli/support/runCli.js";
import { makeTestKeystore, removeTestKeystores } from "./support/payMcpClient.js";

const payer = devAccount(1);
const cliDirs: string[] = [];

afterAll(async () => {
  await removeTestKeystores();
  await Promise.all(cliDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function refusal(keystorePath: string, passwordPath: string) {
  try {
    await loadKeystoreAccount({ keystorePath, passwordPath });
  } catch (error) {
    expect(error).toBeInstanceOf(UnpayableError);
    return (error as UnpayableError).toJSON();
  }
  throw new Error("expected the keystore to be refused");
}

describe("loadKeystoreAccount", () => {
  it("opens scrypt and pbkdf2 keystores into the account of the stored key", async () => {
    for (const kdf of ["scrypt", "pbkdf2"] as const) {
      const ks = await makeTestKeystore(payer.privateKey, { kdf });
      const account = await loadKeystoreAccount(ks);
      expect(account.address).toBe(payer.address);
    }
  });

  it("takes one trailing newline (LF or CRLF) off the password file, and only one", async () => {
    const lf = await makeTestKeystore(payer.privateKey, { password: "pw", passwordFileText: "pw\n" });
    const crlf = await makeTestKeystore(payer.privateKey, { password: "pw", passwordFileText: "pw\r\n" });
    const bare = await makeTestKeystore(payer.privateKey, { password: "pw", passwordFileText: "pw" });
    const kept = await makeTestKeystore(payer.privateKey, { password: "pw\n", passwordFileText: "pw\n\n" });
    const twice = await makeTestKeystore(payer.privateKey, { password: "pw", passwordFileText: "pw\n\n" });
    for (const ks of [lf, crlf, bare, kept])
      expect((await loadKeystoreAccount(ks)).address).toBe(payer.address);
    expect(await refusal(twice.keystorePath, twice.passwordPath)).toMatchObject({ code: "wrong_password" });
  });

  it("refuses files that group or others can read or write", async () => {
    for (const mode of [0o640, 0o604, 0o620, 0o602, 0o660, 0o666]) {
      const ks = await makeTestKeystore(payer.privateKey);
      await chmod(ks.keystorePath, mode);
      expect(await refusal(ks.keystorePath, ks.passwordPath)).toMatchObject({
        code: "keystore_permissions",
        setting: "PAY_MCP_EVM_KEYSTORE_PATH",
      });
      await chmod(ks.keystorePath, 0o600);
      await chmod(ks.passwordPath, mode);
      expect(await refusal(ks.keystorePath, ks.passwordPath)).toMatchObject({
        code: "password_permissions",
        setting: "PAY_MCP_EVM_PASSWORD_PATH",
      });
    }
    const ks = await makeTestKeystore(payer.privateKey);
    await chmod(ks.keystorePath, 0o400);
    expect((await loadKeystoreAccount(ks)).address).toBe(payer.address);
  });

  it("refuses a directory, a missing file, and hostile keystore contents", async () => {
    const ks = await makeTestKeystore(payer.privateKey);
    const good = JSON.parse(await readFile(ks.keystorePath, "utf8")) as {
      crypto: Record<string, unknown> & { kdfparams: Record<string, unknown> };
    };
    expect(await refusal(ks.dir, ks.passwordPath)).toMatchObject({ code: "keystore_unreadable" });
    expect(await refusal(join(ks.dir, "nope.json"), ks.passwordPath)).toMatchObject({
      code: "keystore_unreadable",
    });
    expect(await refusal(ks.keystorePath, join(ks.dir, "nope"))).toMatchObject({
      code: "password_unreadable",
    });
    const hostile: unknown[] = [
      "not json",
      null,
      [],
      { ...good, version: 1 },
      { ...good, crypto: { ...good.crypto, cipher: "aes-128-cbc" } },
      { ...good, crypto: { ...good.crypto, kdf: "argon2" } },
      { ...good, crypto: { ...good.crypto, kdfparams: { ...good.crypto.kdfparams, n: 2 ** 30 } } },
      { ...good, crypto: { ...good.crypto, kdfparams: { ...good.crypto.kdfparams, n: 1000 } } },
      { ...good, crypto: { ...good.crypto, kdfparams: { ...good.crypto.kdfparams, dklen: 16 } } },
      { ...good, crypto: { ...good.crypto, mac: "00" } },
      { ...good, crypto: { ...good.crypto, ciphertext: "zz" } },
      { ...good, address: devAccount(2).address.slice(2).toLowerCase() },
    ];
    for (const content of hostile) {
      await writeFile(ks.keystorePath, typeof content === "string" ? content : JSON.stringify(content));
      expect(await refusal(ks.keystorePath, ks.passwordPath), JSON.stringify(content)).toMatchObject({
        code: "keystore_invalid",
        setting: "PAY_MCP_EVM_KEYSTORE_PATH",
      });
    }
  });

  it("keeps the key and the password out of every error", async () => {
    const ks = await makeTestKeystore(payer.privateKey, {
      password: "s3cret-passw0rd",
      passwordFileText: "wrong\n",
    });
    const error = await refusal(ks.keystorePath, ks.passwordPath);
    const text = JSON.stringify(error);
    expect(error.code).toBe("wrong_password");
    expect(text).not.toContain(payer.privateKey.slice(2));
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("wrong\n");
  });
});

function runKeystoreCli(args: string[], stdin = "") {
  const child = spawn(process.execPath, ["--import", "tsx", "src/mcp/x402-pay-mcp.ts", "keystore", ...args], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(stdin);
  return collect(child);
}

/** The same command in this process, with buffers for its output. */
async function runKeystoreInProcess(args: string[], stdin = "") {
  let stdout = "";
  let stderr = "";
  const code = await runKeystoreCommand(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

// Spawning tsx and scrypt at full strength are slow on a loaded machine: generous limits, no speed asserted.
describe("x402-pay-mcp keystore create", { timeout: 120_000 }, () => {
  it("imports a key from stdin into a 0600 keystore the server opens; a new password file is 0600 too", async () => {
    const dir = await mkdtemp(join(tmpdir(), "x402-pay-mcp-cli-"));
    cliDirs.push(dir);
    const keystorePath = join(dir, "payer.json");
    const passwordPath = join(dir, "payer.pass");
    const result = await runKeystoreCli(
      ["create", "--keystore", keystorePath, "--password-file", passwordPath, "--import-key"],
      `${payer.privateKey}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `address ${payer.address}\nPAY_MCP_EVM_KEYSTORE_PATH=${keystorePath}\nPAY_MCP_EVM_PASSWORD_PATH=${passwordPath}\n`,
    );
    // scrypt at full strength takes about 20 s: the command says so while it runs.
    expect(result.stderr).toMatch(/^x402-pay-mcp keystore: encrypting with scrypt .*\.* done in \d+ s$/m);
    expect(result.stdout + result.stderr).not.toContain(payer.privateKey.slice(2));
    expect((await stat(keystorePath)).mode & 0o777).toBe(0o600);
    expect((await stat(passwordPath)).mode & 0o777).toBe(0o600);
    const keystore = JSON.parse(await readFile(keystorePath, "utf8")) as { crypto: { kdf: string } };
    expect(keystore.crypto.kdf).toBe("scrypt");
    expect((await loadKeystoreAccount({ keystorePath, passwordPath })).address).toBe(payer.address);

    const again = await runKeystoreInProcess([
      "create",
      "--keystore",
      keystorePath,
      "--password-file",
      passwordPath,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
  });

  it("makes a new random key with an existing password file, and refuses a loose one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "x402-pay-mcp-cli-"));
    cliDirs.push(dir);
    const passwordPath = join(dir, "payer.pass");
    await writeFile(passwordPath, "my password\n", { mode: 0o600 });
    const created = await runKeystoreInProcess([
      "create",
      "--keystore",
      join(dir, "a.json"),
      "--password-file",
      passwordPath,
      "--kdf",
      "pbkdf2",
    ]);
    expect(created.code).toBe(0);
    const address = /^address (0x[0-9a-fA-F]{40})$/m.exec(created.stdout)?.[1];
    expect(address).toBeDefined();
    const account = await loadKeystoreAccount({ keystorePath: join(dir, "a.json"), passwordPath });
    expect(account.address).toBe(address);

    await chmod(passwordPath, 0o644);
    const loose = await runKeystoreInProcess([
      "create",
      "--keystore",
      join(dir, "b.json"),
      "--password-file",
      passwordPath,
    ]);
    expect(loose.code).toBe(1);
    expect(loose.stderr).toContain("chmod 600");
  });

  it("answers usage errors with exit status 2", async () => {
    const usages = [[], ["make"], ["create"], ["create", "--keystore", "/tmp/x"], ["create", "--bogus"]];
    const results = await Promise.all(usages.map((args) => runKeystoreInProcess(args)));
    for (const [i, result] of results.entries()) {
      expect(result.code, usages[i]!.join(" ")).toBe(2);
      expect(result.stderr).toContain("Usage: x402-pay-mcp keystore create");
    }
    const bad = await runKeystoreInProcess(
      [
        "create",
        "--keystore",
        "/tmp/never-written.json",
        "--password-file",
        "/tmp/never.pass",
        "--import-key",
      ],
      "not a key",
    );
    expect(bad.code).toBe(1);
  });
});
