import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { KeyPairSigner } from "@solana/kit";
import type { LocalAccount } from "viem/accounts";
import { readSolanaKeypairFile, SolanaKeypairError } from "../common/readSolanaKeypairFile.js";
import { z } from "zod/v4";
import { UnpayableError } from "./errors.js";
import { loadKeystoreAccount } from "./loadKeystoreAccount.js";
import { parsePayerSettings, type PayerSettings } from "./parsePayerSettings.js";
import { payForResource } from "./payForResource.js";
import type { PayOutcome } from "./PayOutcome.js";
import { SessionBudget } from "./SessionBudget.js";
import { toToolResult } from "./toToolResult.js";

export interface CreatePayMcpServerOptions {
  /** The environment the settings are read from (`PAY_MCP_EVM_*`, `PAY_MCP_SVM_*`). */
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

/** Longest body the tool sends (the request, not the answer), in UTF-16 code units. */
const MAX_REQUEST_BODY = 1_048_576;

const inputSchema = {
  url: z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .describe("The URL of the resource, paying its x402 price if it asks for one."),
  method: z
    .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
    .optional()
    .describe("The HTTP method (default GET); a paid request is sent with the same method and body."),
  body: z
    .string()
    .max(MAX_REQUEST_BODY)
    .optional()
    .describe("The request body, as UTF-8 text (e.g. JSON for a POST); not with GET."),
  contentType: z
    .string()
    .regex(/^[\x21-\x7e][\x20-\x7e]{0,255}$/, "a media type such as application/json")
    .optional()
    .describe("The body's Content-Type, e.g. application/json; only with a body."),
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
        "Request a URL (GET by default; method, body and contentType for a POST and the like); when it " +
        "answers 402 Payment Required (x402, scheme exact or exact-pq on EVM, exact on Solana), pay its price from the configured " +
        "wallet within the configured allow-lists and caps, send the same request again with the payment, and " +
        "return the resource. Outcomes: paid (resource, " +
        "transaction, payer, amount, asset, network, nonce), paid_unconfirmed (signed and sent, settlement " +
        "not confirmed: do not pay the same URL again blindly), free (no payment asked, a 2xx or 3xx answer), " +
        "unpayable (code, the setting that forbids it, message; nothing signed), failed (code, message; " +
        "http_error with the resource for a 4xx or 5xx answer without a payment asked; signed: true when an " +
        "authorization was sent). Whenever signed is true the amount counts against the session cap.",
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ url, method, body, contentType }) => {
      const ready = await payer;
      const outcome: PayOutcome =
        ready instanceof UnpayableError
          ? { outcome: "unpayable", ...ready.toJSON() }
          : await payForResource(
              url,
              { ...ready, fetch: options.fetch, timeoutMs: options.timeoutMs, log },
              { method: method ?? "GET", body, contentType },
            );
      return toToolResult(outcome);
    },
  );
  return server;
}

/** Settings, then the keystore: the payer, or the first reason it cannot pay (logged once). */
async function startPayer(
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<
  | {
      settings: PayerSettings;
      account: LocalAccount | undefined;
      solanaSigner: KeyPairSigner | undefined;
      budget: SessionBudget;
    }
  | UnpayableError
> {
  const parsed = parsePayerSettings(env);
  if (!parsed.ok) {
    for (const error of parsed.errors) log(`setting: ${error.message}`);
    return parsed.errors[0]!;
  }
  const { settings } = parsed;
  const { keystorePath, passwordPath, svmKeypairPath } = settings;
  try {
    const account =
      keystorePath === undefined || passwordPath === undefined
        ? undefined
        : await loadKeystoreAccount({ keystorePath, passwordPath });
    const solanaSigner = svmKeypairPath === undefined ? undefined : await loadSolanaSigner(svmKeypairPath);
    const payers = [account?.address, solanaSigner?.address].filter((address) => address !== undefined);
    log(
      `payer ${payers.join(", ")}; networks ${settings.networks.join(",")}; session cap ${settings.maxPerSession}`,
    );
    return { settings, account, solanaSigner, budget: new SessionBudget(settings.maxPerSession) };
  } catch (error) {
    const refusal =
      error instanceof UnpayableError
        ? error
        : new UnpayableError("keystore_invalid", "the keystore could not be loaded");
    log(`wallet: ${refusal.code}: ${refusal.message}`);
    return refusal;
  }
}

/** The Solana keypair file's signer; its refusals as the payer's (`keypair_*`). */
async function loadSolanaSigner(path: string): Promise<KeyPairSigner> {
  try {
    return await readSolanaKeypairFile(path);
  } catch (error) {
    if (error instanceof SolanaKeypairError) throw new UnpayableError(error.code, error.message);
    throw error;
  }
}
