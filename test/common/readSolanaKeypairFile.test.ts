import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSolanaKeypairFile, SolanaKeypairError } from "../../src/common/readSolanaKeypairFile.js";
import { solanaDevAccount, type SolanaDevAccount } from "../../src/dev/solanaDevAccounts.js";
import { connectInProcess } from "../mcp/support/payMcpClient.js";

let dir: string;
let payer: SolanaDevAccount;
let other: SolanaDevAccount;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solana-keypair-"));
  [payer, other] = await Promise.all([solanaDevAccount("payer"), solanaDevAccount("payee")]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes `text` to a fresh file of `mode` and returns its path. */
async function file(text: string, mode = 0o600): Promise<string> {
  const path = join(dir, `keypair-${count++}.json`);
  await writeFile(path, text, { mode });
  await chmod(path, mode);
  return path;
}

const bytes = () => [...payer.keypairBytes];

describe("readSolanaKeypairFile", () => {
  it("reads a Solana CLI keypair file (any JSON whitespace) into the signer of its key", async () => {
    const signer = await readSolanaKeypairFile(await file(JSON.stringify(bytes())));
    expect(signer.address).toBe(payer.address);
    const spaced = await readSolanaKeypairFile(await file(`\n[ ${bytes().join(" ,\n ")} ]\n`));
    expect(spaced.address).toBe(payer.address);
  });

  // Each hostile file: its content (or a setup), and the code it is refused with.
  const corpus: [string, () => Promise<string>, SolanaKeypairError["code"]][] = [
    ["mode 0644 (others may read)", () => file(JSON.stringify(bytes()), 0o644), "keypair_permissions"],
    ["mode 0640 (the group may read)", () => file(JSON.stringify(bytes()), 0o640), "keypair_permissions"],
    ["mode 0602 (others may write)", () => file(JSON.stringify(bytes()), 0o602), "keypair_permissions"],
    ["a missing file", async () => join(dir, "nope.json"), "keypair_unreadable"],
    [
      "a directory",
      async () => {
        const path = join(dir, `d-${count++}`);
        await mkdir(path, { mode: 0o700 });
        return path;
      },
      "keypair_unreadable",
    ],
    [
      "a symlink to a file others may read",
      async () => {
        const target = await file(JSON.stringify(bytes()), 0o644);
        const path = join(dir, `link-${count++}.json`);
        await symlink(target, path);
        return path;
      },
      "keypair_permissions",
    ],
    ["an empty file", () => file(""), "keypair_invalid"],
    ["not JSON", () => file("[1, 2, 3"), "keypair_invalid"],
    [
      "a base58 secret key (Phantom export), not the CLI format",
      () => file(`"${"5".repeat(88)}"`),
      "keypair_invalid",
    ],
    ["a JSON object", () => file(JSON.stringify({ secretKey: bytes() })), "keypair_invalid"],
    ["JSON null", () => file("null"), "keypair_invalid"],
    ["63 bytes", () => file(JSON.stringify(bytes().slice(0, 63))), "keypair_invalid"],
    ["65 bytes", () => file(JSON.stringify([...bytes(), 0])), "keypair_invalid"],
    ["the 32-byte seed alone", () => file(JSON.stringify(bytes().slice(0, 32))), "keypair_invalid"],
    ["a byte of 256", () => file(JSON.stringify([256, ...bytes().slice(1)])), "keypair_invalid"],
    ["a negative byte", () => file(JSON.stringify([-1, ...bytes().slice(1)])), "keypair_invalid"],
    ["a fractional byte", () => file(JSON.stringify([1.5, ...bytes().slice(1)])), "keypair_invalid"],
    ["bytes as strings", () => file(JSON.stringify(bytes().map(String))), "keypair_invalid"],
    ["a null entry", () => file(JSON.stringify([null, ...bytes().slice(1)])), "keypair_invalid"],
    ["a nested array", () => file(JSON.stringify([bytes()])), "keypair_invalid"],
    [
      "another key's public half (seed and public key do not match)",
      () => file(JSON.stringify([...bytes().slice(0, 32), ...[...other.keypairBytes].slice(32)])),
      "keypair_invalid",
    ],
    ["a file of 1 MB", () => file(`[${"0,".repeat(500_000)}0]`), "keypair_invalid"],
  ];

  it.each(corpus)("refuses %s (%s), naming the file, never its content", async (_name, make, code) => {
    const path = await make();
    const error = await readSolanaKeypairFile(path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SolanaKeypairError);
    expect(error).toMatchObject({ code });
    const message = (error as Error).message;
    expect(message).toContain(path);
    // The secret seed never shows up in a message.
    expect(message).not.toContain(bytes().slice(0, 8).join(","));
  });

  it("refuses every array that is not 64 bytes of a matching keypair, and never throws anything else", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.array(fc.integer({ min: -2, max: 300 }), { minLength: 0, maxLength: 70 }),
          fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 64, maxLength: 64 }),
          fc.jsonValue(),
        ),
        async (value) => {
          const path = await file(JSON.stringify(value) ?? "");
          const outcome = await readSolanaKeypairFile(path).then(
            (signer) => signer.address,
            (thrown: unknown) => thrown,
          );
          // 64 random bytes almost never hold a seed and its public key: only the real layout passes.
          expect(outcome).toBeInstanceOf(SolanaKeypairError);
          expect((outcome as SolanaKeypairError).code).toBe("keypair_invalid");
          await rm(path);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the MCP payer with a hostile keypair file", () => {
  const env = (path: string) => ({
    PAY_MCP_SVM_KEYPAIR_PATH: path,
    PAY_MCP_EVM_NETWORKS: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    PAY_MCP_EVM_PAYEES: other.address,
    PAY_MCP_EVM_MAX_PER_PAYMENT: "10000",
    PAY_MCP_EVM_MAX_PER_SESSION: "10000",
  });

  it.each<[string, () => Promise<string>, string]>([
    ["readable by others", () => file(JSON.stringify(bytes()), 0o644), "keypair_permissions"],
    ["missing", async () => join(dir, "missing.json"), "keypair_unreadable"],
    ["not 64 bytes", () => file("[1,2,3]"), "keypair_invalid"],
  ])(
    "a keypair file %s: every call is unpayable naming PAY_MCP_SVM_KEYPAIR_PATH, nothing sent",
    async (_name, make, code) => {
      const path = await make();
      let requests = 0;
      const mcp = await connectInProcess({
        env: env(path),
        fetch: () => {
          requests++;
          return Promise.reject(new Error("no request expected"));
        },
      });
      try {
        const call = await mcp.pay("http://127.0.0.1:9/paid");
        expect(call.isError).toBe(true);
        expect(call.structured).toMatchObject({
          outcome: "unpayable",
          code,
          setting: "PAY_MCP_SVM_KEYPAIR_PATH",
        });
        expect(requests).toBe(0);
        expect(mcp.log.join("\n")).toContain(`wallet: ${code}`);
      } finally {
        await mcp.close();
      }
    },
  );
});
