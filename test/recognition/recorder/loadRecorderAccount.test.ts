import { chmod } from "node:fs/promises";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { starknetDevAccount } from "../../../src/dev/starknetDevAccounts.js";
import { loadRecorderAccount } from "../../../src/recognition/recorder/loadRecorderAccount.js";
import { makeTestKeystore } from "../../mcp/support/payMcpClient.js";

const account = starknetDevAccount(5);
const as32Bytes = (felt: string) => `0x${BigInt(felt).toString(16).padStart(64, "0")}` as Hex;

describe("the recorder's account key (loadRecorderAccount)", () => {
  it("reads the Stark key from the named environment variable", async () => {
    const loaded = await loadRecorderAccount(
      { account: account.address, privateKeyEnv: "KEY" },
      { KEY: ` ${account.privateKey}\n` },
    );
    expect(loaded).toEqual({ address: account.address, privateKey: account.privateKey });
  });

  it("refuses a missing, malformed or out-of-range key, naming the variable and never the value", async () => {
    const cases: Array<[string | undefined, RegExp]> = [
      [undefined, /KEY is not set/],
      ["", /KEY is not set/],
      ["0xnothex", /KEY is not a felt/],
      ["12345", /KEY is not a felt/],
      [`0x${"f".repeat(65)}`, /KEY is not a felt/],
      ["0x0", /no Stark private key/],
      [`0x${"f".repeat(64)}`, /no Stark private key/],
    ];
    for (const [value, message] of cases) {
      const env = value === undefined ? {} : { KEY: value };
      const error = await loadRecorderAccount({ account: "0x1", privateKeyEnv: "KEY" }, env).catch(
        (e: Error) => e,
      );
      expect(error, String(value)).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
      if (value) expect((error as Error).message).not.toContain(value);
    }
  });

  it("opens a v3 keystore (scrypt and pbkdf2) into the same key; refuses a wrong password and a readable file", async () => {
    for (const kdf of ["scrypt", "pbkdf2"] as const) {
      const ks = await makeTestKeystore(as32Bytes(account.privateKey), { kdf });
      const loaded = await loadRecorderAccount({
        account: account.address,
        keystore: { file: ks.keystorePath, passwordFile: ks.passwordPath },
      });
      expect(loaded.privateKey).toBe(account.privateKey);
    }
    const wrong = await makeTestKeystore(as32Bytes(account.privateKey), { passwordFileText: "not it\n" });
    await expect(
      loadRecorderAccount({
        account: "0x1",
        keystore: { file: wrong.keystorePath, passwordFile: wrong.passwordPath },
      }),
    ).rejects.toThrow(/does not open/);
    const open = await makeTestKeystore(as32Bytes(account.privateKey));
    await chmod(open.keystorePath, 0o644);
    await expect(
      loadRecorderAccount({
        account: "0x1",
        keystore: { file: open.keystorePath, passwordFile: open.passwordPath },
      }),
    ).rejects.toThrow(/chmod 600|group and others/);
  });
});
