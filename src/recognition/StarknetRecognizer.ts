import { StarknetRpc, type RpcExchange } from "../starknet/StarknetRpc.js";
import { StarknetRpcFailureError } from "../starknet/StarknetRpcFailureError.js";
import type { Recognizer } from "./Recognizer.js";
import { RecognitionError } from "./RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";
import { evmAddressToFelt, toFelt } from "./toFelt.js";

export type { RpcExchange } from "../starknet/StarknetRpc.js";

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

/**
 * Asks the resource contract `est_ouverte(payer)` on Starknet (docs/recognition.md, "Configuration"): a
 * `starknet_call` on `{rpcUrl}/rpc/v0_10` at block `latest`, params positional as the seed writes them.
 * Throws a {@link RecognitionError} when the call fails; it caches nothing (see RecognitionCache).
 */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const FELT = /^0x[0-9a-fA-F]{1,64}$/;

function layerTwoAccountFelt(address: string): string {
  if (!FELT.test(address))
    throw new RangeError(`not an EVM address nor a layer-2 account (a felt): ${JSON.stringify(address)}`);
  return toFelt(address);
}

export class StarknetRecognizer implements Recognizer {
  readonly nodeUrl: string;
  readonly contract: string;
  private readonly rpc: StarknetRpc;

  constructor(options: StarknetRecognizerOptions) {
    this.rpc = new StarknetRpc({
      rpcUrl: options.rpcUrl,
      setting: "recognition rpcUrl",
      timeoutMs: options.timeoutMs ?? RECOGNITION_DEFAULTS.timeoutMs,
      fetch: options.fetch,
      onExchange: options.onExchange,
    });
    this.nodeUrl = this.rpc.endpoint;
    this.contract = toFelt(options.contract);
  }

  /**
   * The raw answer of `est_ouverte(address)`: one felt, `0x1` (recognized) or `0x0` (not, or not yet).
   * `address` is an EVM address, or a layer-2 account (a felt: a Starknet-signed payer is recorded so).
   */
  async estOuverte(address: string): Promise<string> {
    const payer = EVM_ADDRESS.test(address) ? evmAddressToFelt(address) : layerTwoAccountFelt(address);
    let result: unknown;
    try {
      result = await this.rpc.call(this.contract, EST_OUVERTE, [payer]);
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
  if (!(error instanceof StarknetRpcFailureError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new RecognitionError("malformed", `unexpected failure of starknet_call: ${message}`, {
      details: context,
      cause: error,
    });
  }
  const { url, status, timeoutMs, body, code, rpcMessage, data } = error.details;
  if (error.kind !== "rpc") {
    const kind = error.isTransport && error.kind !== "not_json" ? "transport" : "malformed";
    return new RecognitionError(kind, error.message, {
      details: { url, status, timeoutMs, body },
      cause: error,
    });
  }
  const kind = (KIND_BY_CODE as Record<number, (typeof KIND_BY_CODE)[keyof typeof KIND_BY_CODE]>)[code ?? 0];
  const details: Record<string, unknown> = { ...context, code, rpcMessage };
  if (kind === "contract_error") {
    details.revertError = (data as { revert_error?: unknown } | undefined)?.revert_error;
    return new RecognitionError(kind, "est_ouverte reverted", { details, cause: error });
  }
  if (kind !== undefined) {
    return new RecognitionError(kind, `starknet_call failed: ${rpcMessage}`, { details, cause: error });
  }
  if (data !== undefined) details.data = data;
  return new RecognitionError("transport", `the node refused starknet_call: ${code} ${rpcMessage}`, {
    details,
    cause: error,
  });
}
