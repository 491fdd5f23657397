import { LibraryError, RpcError, RpcProvider } from "starknet";
import type { Recognizer } from "./Recognizer.js";
import { RecognitionError } from "./RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";
import { evmAddressToFelt, toFelt } from "./toFelt.js";

/** One raw JSON-RPC exchange, as sent and received (for `recognize --verbose`). */
export interface RpcExchange {
  url: string;
  request: string;
  /** HTTP status; undefined when no answer came (timeout, connection refused). */
  status?: number;
  response?: string;
  ms: number;
}

export interface StarknetRecognizerOptions {
  /** JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10`. `https://`, or `http://` on loopback only. */
  rpcUrl: string;
  /** Address of the contract exposing `est_ouverte`. */
  contract: string;
  /** Timeout of one call (connection, answer and body), in ms. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Sees every raw exchange (for operators); must not throw. */
  onExchange?: (exchange: RpcExchange) => void;
}

/** The `est_ouverte` entry point of the resource contract. */
export const EST_OUVERTE = "est_ouverte";

/** Carries a RecognitionError through starknet.js, which rethrows its own LibraryError subclasses unchanged. */
class CarriedFailure extends LibraryError {
  constructor(readonly failure: RecognitionError) {
    super(failure.message);
  }
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Asks the resource contract `est_ouverte(payer)` on Starknet (WIRE.md §3): a `starknet_call` on
 * `{rpcUrl}/rpc/v0_10` at block `latest`, through starknet.js pinned to spec 0.10.
 * Throws a {@link RecognitionError} when the call fails; it caches nothing (see RecognitionCache).
 */
export class StarknetRecognizer implements Recognizer {
  readonly nodeUrl: string;
  readonly contract: string;
  private readonly provider: RpcProvider;

  constructor(options: StarknetRecognizerOptions) {
    const base = new URL(options.rpcUrl);
    if (base.protocol !== "https:" && !(base.protocol === "http:" && LOOPBACK_HOSTS.has(base.hostname))) {
      throw new RangeError(
        `recognition rpcUrl must be https:// (plain http only on loopback): ${options.rpcUrl}`,
      );
    }
    this.nodeUrl = `${options.rpcUrl.replace(/\/+$/, "")}/rpc/v0_10`;
    this.contract = toFelt(options.contract);
    const timeoutMs = options.timeoutMs ?? RECOGNITION_DEFAULTS.timeoutMs;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const onExchange = options.onExchange;

    const baseFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = String(input);
      const request = typeof init?.body === "string" ? init.body : "";
      const started = performance.now();
      const report = (exchange: Omit<RpcExchange, "url" | "request" | "ms">) =>
        onExchange?.({ url, request, ms: performance.now() - started, ...exchange });
      let status: number | undefined;
      let text: string;
      try {
        const response = await fetchImpl(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
        status = response.status;
        text = await response.text();
      } catch (cause) {
        report({ status });
        const timedOut = cause instanceof Error && cause.name === "TimeoutError";
        throw new CarriedFailure(
          new RecognitionError(
            "transport",
            timedOut ? `no answer from ${url} within ${timeoutMs} ms` : `could not reach ${url}`,
            { details: { url, timeoutMs, status }, cause },
          ),
        );
      }
      report({ status, response: text });
      if (status < 200 || status > 299) {
        throw new CarriedFailure(
          new RecognitionError("transport", `${url} answered HTTP ${status}`, {
            details: { url, status, body: text.slice(0, 200) },
          }),
        );
      }
      try {
        JSON.parse(text);
      } catch (cause) {
        throw new CarriedFailure(
          new RecognitionError("malformed", `${url} answered something that is not JSON`, {
            details: { url, status, body: text.slice(0, 200) },
            cause,
          }),
        );
      }
      return new Response(text, { status, headers: { "content-type": "application/json" } });
    };

    this.provider = new RpcProvider({
      nodeUrl: this.nodeUrl,
      specVersion: "0.10.2",
      baseFetch,
      blockIdentifier: "latest",
      plugins: false,
    });
  }

  /** The raw answer of `est_ouverte(address)`: one felt, `0x1` (recognized) or `0x0` (not, or not yet). */
  async estOuverte(address: string): Promise<string> {
    const payer = evmAddressToFelt(address);
    let result: unknown;
    try {
      result = await this.provider.callContract(
        { contractAddress: this.contract, entrypoint: EST_OUVERTE, calldata: [payer] },
        "latest",
      );
    } catch (error) {
      throw toRecognitionError(error, { contract: this.contract, payer });
    }
    if (!Array.isArray(result) || result.length !== 1 || typeof result[0] !== "string") {
      throw new RecognitionError("malformed", "est_ouverte did not return exactly one felt", {
        details: { result },
      });
    }
    return result[0];
  }

  async isRecognized(address: string): Promise<boolean> {
    const answer = await this.estOuverte(address);
    let value: bigint;
    try {
      value = BigInt(answer);
    } catch (cause) {
      throw new RecognitionError("malformed", `est_ouverte returned ${JSON.stringify(answer)}`, { cause });
    }
    if (value === 1n) return true;
    if (value === 0n) return false;
    throw new RecognitionError("malformed", `est_ouverte returned ${answer}, expected 0x0 or 0x1`, {
      details: { result: answer },
    });
  }
}

const KIND_BY_CODE = {
  20: "contract_not_found",
  21: "entrypoint_not_found",
  24: "block_not_found",
  40: "contract_error",
} as const;

function toRecognitionError(error: unknown, context: { contract: string; payer: string }): RecognitionError {
  if (error instanceof CarriedFailure) return error.failure;
  if (error instanceof RpcError) {
    const { code, message, data } = error.baseError as { code: number; message: string; data?: unknown };
    const kind = (KIND_BY_CODE as Record<number, (typeof KIND_BY_CODE)[keyof typeof KIND_BY_CODE]>)[code];
    const details: Record<string, unknown> = { ...context, code, rpcMessage: message };
    if (kind === "contract_error") {
      details.revertError = (data as { revert_error?: unknown } | undefined)?.revert_error;
      return new RecognitionError(kind, "est_ouverte reverted", { details, cause: error });
    }
    if (kind !== undefined) {
      return new RecognitionError(kind, `starknet_call failed: ${message}`, { details, cause: error });
    }
    if (data !== undefined) details.data = data;
    return new RecognitionError("transport", `the node refused starknet_call: ${code} ${message}`, {
      details,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RecognitionError("malformed", `unexpected answer to starknet_call: ${message}`, {
    details: context,
    cause: error,
  });
}
