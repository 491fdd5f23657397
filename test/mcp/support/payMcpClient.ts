import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Hex } from "viem";
import { createPayMcpServer, type CreatePayMcpServerOptions } from "../../../src/mcp/createPayMcpServer.js";
import { writeKeystore } from "../../../src/mcp/writeKeystore.js";
import { ROOT } from "../../cli/support/runCli.js";

/** What a `pay_for_resource` call answered: its structured content, its text and its error flag. */
export interface PayCall {
  structured: Record<string, unknown>;
  text: string;
  isError: boolean;
}

export interface PayMcpClient {
  client: Client;
  /** Calls the tool with `url` and, when given, `method`, `body` and `contentType`. */
  pay(url: string, request?: { method?: string; body?: string; contentType?: string }): Promise<PayCall>;
  /** What the server wrote on stderr so far (stdio servers only). */
  stderr(): string;
  /** The server's process id (stdio servers only). */
  pid(): number | null;
  close(): Promise<void>;
}

async function wrap(
  client: Client,
  stderr: () => string,
  close: () => Promise<void>,
  pid: () => number | null = () => null,
): Promise<PayMcpClient> {
  return {
    client,
    stderr,
    pid,
    close,
    pay: async (url, request = {}) => {
      const result = await client.callTool(
        { name: "pay_for_resource", arguments: { url, ...request } },
        undefined,
        {
          timeout: 120_000,
        },
      );
      const content = result.content as { type: string; text?: string }[];
      return {
        structured: result.structuredContent as Record<string, unknown>,
        text: content.map((part) => part.text ?? "").join("\n"),
        isError: result.isError === true,
      };
    },
  };
}

/** Spawns `src/mcp/x402-pay-mcp.ts` with tsx, as an MCP client would spawn the bin, and connects to it over stdio. */
export async function connectStdio(env: Record<string, string>): Promise<PayMcpClient> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("PAY_MCP_"),
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "src/mcp/x402-pay-mcp.ts"],
    cwd: ROOT,
    env: { ...inherited, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer | string) => (stderr += String(chunk)));
  const client = new Client({ name: "x402-pay-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  return wrap(
    client,
    () => stderr,
    () => client.close(),
    () => transport.pid,
  );
}

/** The server in this process, over the SDK's in-memory transport (for options the bin does not expose). */
export async function connectInProcess(
  options: CreatePayMcpServerOptions,
): Promise<PayMcpClient & { log: string[] }> {
  const log: string[] = [];
  const server = createPayMcpServer({ ...options, log: (line) => log.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "x402-pay-mcp-test", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const wrapped = await wrap(
    client,
    () => log.join("\n"),
    async () => {
      await client.close();
      await server.close();
    },
  );
  return { ...wrapped, log };
}

export interface TestKeystore {
  dir: string;
  keystorePath: string;
  passwordPath: string;
  password: string;
}

const made: string[] = [];

/** Deletes the directories `makeTestKeystore` made (call in `afterAll`). */
export async function removeTestKeystores(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A keystore (cheap work factor) and its password file, both mode 0600, in a fresh temporary directory. */
export async function makeTestKeystore(
  privateKey: Hex,
  options: { kdf?: "scrypt" | "pbkdf2"; password?: string; passwordFileText?: string } = {},
): Promise<TestKeystore> {
  const dir = await mkdtemp(join(tmpdir(), "x402-pay-mcp-"));
  made.push(dir);
  const password = options.password ?? "correct horse battery staple";
  const keystorePath = join(dir, "payer.json");
  const passwordPath = join(dir, "payer.pass");
  await writeKeystore({
    path: keystorePath,
    password,
    privateKey,
    kdf: options.kdf ?? "scrypt",
    workFactor: options.kdf === "pbkdf2" ? 1000 : 1024,
  });
  await writeFile(passwordPath, options.passwordFileText ?? `${password}\n`, { mode: 0o600 });
  await chmod(passwordPath, 0o600);
  return { dir, keystorePath, passwordPath, password };
}
