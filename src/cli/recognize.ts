import { parseArgs } from "node:util";
import { RecognitionError } from "../recognition/RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "../recognition/recognitionDefaults.js";
import { StarknetRecognizer, type RpcExchange } from "../recognition/StarknetRecognizer.js";
import { toFelt } from "../recognition/toFelt.js";

/** Where the command writes: `process.stdout` / `process.stderr`, or a test's buffers. */
export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export const RECOGNIZE_USAGE = `Usage: x402-gateway recognize <payer> --rpc-url <url> --contract <address> [--timeout-ms <n>] [--verbose]

Asks the resource contract est_ouverte(<payer>) on Starknet (starknet_call on <url>/rpc/v0_10,
block latest) and prints the answer: 0x1 (recognized) or 0x0 (not, or not yet: right after a
payment the receipt may not be on the chain for a little while).

  <payer>        the payer's EVM address (0x + 40 hex digits, any case), or the layer-2 account a
                 Starknet-signed CBOR payment was recorded as (a felt: 0x + 1–64 hex digits)
  --rpc-url      JSON-RPC base URL of a Starknet node (https://, or http:// on loopback), or its
                 endpoint ending in /rpc/v0_10 as npm start prints it ("layer-2 node"); --rpc is the same
  --contract     address of the contract exposing est_ouverte
  --timeout-ms   timeout of the call, in ms (default ${RECOGNITION_DEFAULTS.timeoutMs})
  --verbose      also print the raw JSON-RPC request and response (on stderr)
  --help         this text

Exit status: 0 when the chain answered (0x1 or 0x0), 1 when the call failed, 2 on a usage error.`;

/**
 * `x402-gateway recognize`: check a payer by hand, the way the gateway does (without its cache).
 * Resolves the exit status; never calls `process.exit`.
 */
export async function runRecognize(argv: string[], io: CommandIo): Promise<number> {
  const usageError = (message: string): number => {
    io.stderr.write(`x402-gateway recognize: ${message}\n\n${RECOGNIZE_USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        "rpc-url": { type: "string" },
        rpc: { type: "string" },
        contract: { type: "string" },
        "timeout-ms": { type: "string" },
        verbose: { type: "boolean", short: "v" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${RECOGNIZE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) return usageError("expected exactly one <payer>");
  const payer = positionals[0]!;
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(payer) || !fitsFelt(payer))
    return usageError(`<payer> is not an EVM address nor a layer-2 account (a felt): ${payer}`);
  if (values["rpc-url"] !== undefined && values.rpc !== undefined)
    return usageError("give --rpc-url or --rpc, not both");
  const rpcUrl = values["rpc-url"] ?? values.rpc;
  const contract = values.contract;
  if (rpcUrl === undefined) return usageError("--rpc-url is required");
  if (contract === undefined) return usageError("--contract is required");
  let timeoutMs: number = RECOGNITION_DEFAULTS.timeoutMs;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      return usageError("--timeout-ms must be a positive integer");
  }

  let recognizer: StarknetRecognizer;
  try {
    recognizer = new StarknetRecognizer({
      rpcUrl,
      contract,
      timeoutMs,
      onExchange: values.verbose ? (exchange) => io.stderr.write(describeExchange(exchange)) : undefined,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }

  try {
    const answer = await recognizer.estOuverte(payer);
    io.stdout.write(`${answer}\n`);
    return 0;
  } catch (error) {
    if (error instanceof RecognitionError) {
      const details = Object.keys(error.details).length > 0 ? ` ${JSON.stringify(error.details)}` : "";
      io.stderr.write(`x402-gateway recognize: ${error.kind}: ${error.message}${details}\n`);
    } else {
      io.stderr.write(`x402-gateway recognize: ${(error as Error).message}\n`);
    }
    return 1;
  }
}

function fitsFelt(hex: string): boolean {
  try {
    toFelt(hex);
    return true;
  } catch {
    return false;
  }
}

function describeExchange(exchange: RpcExchange): string {
  const answer =
    exchange.status === undefined
      ? "< (no answer)"
      : `< HTTP ${exchange.status}${exchange.response === undefined ? "" : ` ${exchange.response}`}`;
  return `> POST ${exchange.url}\n> ${exchange.request}\n${answer}\n  (${Math.round(exchange.ms)} ms)\n`;
}
