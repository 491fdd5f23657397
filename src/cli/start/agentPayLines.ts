import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import type { LocalStack } from "../../dev/startLocalStack.js";
import { PAYER_ENV } from "../../mcp/errors.js";
import { writeKeystore } from "../../mcp/writeKeystore.js";

export interface AgentPayLinesOptions {
  /** npm start's data folder: the payer's keystore and password file are kept there. */
  dataDir: string;
  gatewayUrl: string;
  cborFacilitatorUrl: string;
  /** The LOCAL Solana engine payer's keypair file (owner-only): a second entry pays Solana offers with it. */
  solanaKeypairFile?: string | undefined;
}

/** The `mcpServers` entry `npm start` prints, as an MCP client's config holds it. */
export interface McpServersSnippet {
  mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
}

/** The payer's entry point in this clone (`npm start` runs from source, so the payer does too). */
const ENTRY = fileURLToPath(new URL("../../mcp/x402-pay-mcp.ts", import.meta.url));

/**
 * What `npm start` prints for paying from an agent: a ready-to-paste `mcpServers` entry running
 * `x402-pay-mcp` from this clone with a keystore of the funded test payer (created in `dataDir`,
 * mode 0600, on first run), and the CBOR pay command through a demo delegation chain.
 */
export async function agentPayLines(stack: LocalStack, options: AgentPayLinesOptions): Promise<string[]> {
  const keystorePath = resolve(join(options.dataDir, "mcp-payer.json"));
  const passwordPath = resolve(join(options.dataDir, "mcp-payer.pass"));
  const ready = await ensureKeystore(keystorePath, passwordPath, stack.accounts.payer.privateKey);
  const snippet: McpServersSnippet = {
    mcpServers: {
      "x402-payer-local": {
        // Absolute paths: an MCP client starts servers from its own folder, often without this PATH.
        command: process.execPath,
        args: ["--import", import.meta.resolve("tsx"), ENTRY],
        env: {
          [PAYER_ENV.keystorePath]: keystorePath,
          [PAYER_ENV.passwordPath]: passwordPath,
          [PAYER_ENV.networks]: stack.network,
          [PAYER_ENV.payees]: stack.accounts.payee.address,
          [PAYER_ENV.assets]: stack.token.address,
          [PAYER_ENV.maxPerPayment]: "1000000",
          [PAYER_ENV.maxPerSession]: "5000000",
        },
      },
    },
  };
  const solana = stack.solana;
  if (solana !== undefined && options.solanaKeypairFile !== undefined)
    // The same payer on the LOCAL Solana engine: it pays the Solana option of the same routes.
    snippet.mcpServers["x402-payer-local-solana"] = {
      command: process.execPath,
      args: ["--import", import.meta.resolve("tsx"), ENTRY],
      env: {
        [PAYER_ENV.svmKeypairPath]: resolve(options.solanaKeypairFile),
        [PAYER_ENV.svmRpcUrl]: solana.rpcUrl,
        [PAYER_ENV.networks]: solana.network,
        [PAYER_ENV.payees]: solana.accounts.payee.address,
        [PAYER_ENV.assets]: solana.mint,
        [PAYER_ENV.maxPerPayment]: "1000000",
        [PAYER_ENV.maxPerSession]: "5000000",
      },
    };
  return [
    "Pay from an agent (MCP): paste this into your MCP client's mcpServers config. It runs x402-pay-mcp from",
    `this clone (keep its node_modules) with a keystore of the funded test payer in ${options.dataDir}${solana !== undefined && options.solanaKeypairFile !== undefined ? " (and, as x402-payer-local-solana, with the LOCAL Solana engine payer's keypair file)" : ""}:`,
    ...(ready === true ? JSON.stringify(snippet, null, 2).split("\n") : [`  (not printed: ${ready})`]),
    `Then ask the agent for ${options.gatewayUrl}/api/apy. Docs: docs/mcp-payer.md.`,
    "",
    "Pay for GET /api/apy in application/x402+cbor through a demo delegation chain (the demo payer grants a",
    "fresh agent key a capped scope; the agent pays):",
    `  npm run pay -- --cbor ${options.gatewayUrl}/api/apy --facilitator ${options.cborFacilitatorUrl} --delegate`,
  ];
}

/** The keystore and its password file, made on first run (owner-only); true, or why not. */
async function ensureKeystore(keystorePath: string, passwordPath: string, key: Hex): Promise<true | string> {
  const hasKeystore = existsSync(keystorePath);
  const hasPassword = existsSync(passwordPath);
  if (hasKeystore && !hasPassword)
    return `${keystorePath} exists without ${passwordPath}: delete it and restart to make a new pair`;
  if (!hasKeystore) {
    await mkdir(resolve(keystorePath, ".."), { recursive: true });
    const password = randomBytes(32).toString("base64url");
    await writeFile(passwordPath, `${password}\n`, { mode: 0o600 });
    // The key is anvil's public account 1: a cheap work factor keeps npm start quick and protects as much.
    await writeKeystore({ path: keystorePath, password, privateKey: key, workFactor: 1024 });
  }
  // Owner-only, whatever the umask or an earlier run left: the payer refuses anything looser.
  await Promise.all([chmod(keystorePath, 0o600), chmod(passwordPath, 0o600)]);
  return true;
}
