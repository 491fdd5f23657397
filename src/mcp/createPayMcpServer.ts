import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { LocalAccount } from "viem/accounts";
import { z } from "zod/v4";
import { UnpayableError } from "./errors.js";
import { loadKeystoreAccount } from "./loadKeystoreAccount.js";
import { parsePayerSettings, type PayerSettings } from "./parsePayerSettings.js";
import { payForResource } from "./payForResource.js";
import type { PayOutcome } from "./PayOutcome.js";
import { SessionBudget } from "./SessionBudget.js";
import { toToolResult } from "./toToolResult.js";

export interface CreatePayMcpServerOptions {
  /** The environment the settings are read from (`PAY_MCP_EVM_*`). */
  env: Record<string, string | undefined>;
  /** Diagnostics (stderr in the bin: stdout carries the MCP protocol). Never given the key. */
  log?: (line: string) => void;
  /** The `fetch` payments go through (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Deadline of one tool call, in ms (default 60 000). */
  timeoutMs?: number;
  /** Server version announced to clients. */
  version?: string;
}

export const PAY_TOOL_NAME = "pay_for_resource";

const inputSchema = {
  url: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .describe("The URL of the resource to GET, paying its x402 price if it asks for one."),
};

const resourceSchema = z.object({
  status: z.number(),
  contentType: z.string().nullable(),
  body: z.string(),
  encoding: z.enum(["text", "base64"]),
  bytes: z.number(),
  truncated: z.boolean(),
});

/** One flat shape for every outcome, so MCP clients can validate each result. */
const outputSchema = {
  outcome: z.enum(["paid", "paid_unconfirmed", "free", "unpayable", "failed"]),
  paid: z.boolean().optional(),
  signed: z.boolean().optional(),
  resource: resourceSchema.optional(),
  transaction: z.string().optional(),
  nonce: z.string().optional(),
  validBefore: z.string().optional(),
  payer: z.string().optional(),
  payee: z.string().optional(),
  amount: z.string().optional(),
  asset: z.string().optional(),
  network: z.string().optional(),
  code: z.string().optional(),
  setting: z.string().nullable().optional(),
  message: z.string().optional(),
};

/**
 * The payer for agents: an MCP server with one tool, `pay_for_resource`. Settings are read once from
 * `env`; the keystore is decrypted in the background at start. The session — what the spending cap
 * counts — is the server process.
 */
export function createPayMcpServer(options: CreatePayMcpServerOptions): McpServer {
  const log = options.log ?? (() => {});
  const payer = startPayer(options.env, log);

  const server = new McpServer({ name: "x402-pay-mcp", version: options.version ?? "0.0.0" });
  server.registerTool(
    PAY_TOOL_NAME,
    {
      title: "Pay for an x402 resource",
      description:
        "GET a URL; when it answers 402 Payment Required (x402), pay its price from the configured wallet " +
        "within the configured allow-lists and caps, and return the resource. Outcomes: paid (resource, " +
        "transaction, payer, amount, asset, network, nonce), paid_unconfirmed (signed and sent, settlement " +
        "not confirmed: do not pay the same URL again blindly), free (no payment asked), unpayable (code, " +
        "the setting that forbids it, message; nothing signed), failed (code, message; signed: true when " +
        "an authorization was sent). Whenever signed is true the amount counts against the session cap.",
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ url }) => {
      const ready = await payer;
      const outcome: PayOutcome =
        ready instanceof UnpayableError
          ? { outcome: "unpayable", ...ready.toJSON() }
          : await payForResource(url, {
              ...ready,
              fetch: options.fetch,
              timeoutMs: options.timeoutMs,
              log,
            });
      return toToolResult(outcome);
    },
  );
  return server;
}

/** Settings, then the keystore: the payer, or the first reason it cannot pay (logged once). */
async function startPayer(
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<{ settings: PayerSettings; account: LocalAccount; budget: SessionBudget } | UnpayableError> {
  const parsed = parsePayerSettings(env);
  if (!parsed.ok) {
    for (const error of parsed.errors) log(`setting: ${error.message}`);
    return parsed.errors[0]!;
  }
  const { settings } = parsed;
  try {
    const account = await loadKeystoreAccount(settings);
    log(
      `payer ${account.address}; networks ${settings.networks.join(",")}; session cap ${settings.maxPerSession}`,
    );
    return { settings, account, budget: new SessionBudget(settings.maxPerSession) };
  } catch (error) {
    const refusal =
      error instanceof UnpayableError
        ? error
        : new UnpayableError("keystore_invalid", "the keystore could not be loaded");
    log(`keystore: ${refusal.code}: ${refusal.message}`);
    return refusal;
  }
}
