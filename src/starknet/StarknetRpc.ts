import { keccak_256 } from "@noble/hashes/sha3";
import { StarknetRpcFailureError } from "./StarknetRpcFailureError.js";
import { hexOfBytes } from "../common/bytes.js";

/** One raw JSON-RPC exchange, as sent and received (for `recognize --verbose`). */
export interface RpcExchange {
  url: string;
  request: string;
  /** HTTP status; undefined when no answer came (timeout, connection refused). */
  status?: number;
  response?: string;
  ms: number;
}

export interface StarknetRpcOptions {
  /**
   * JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10` (or to `rpcUrl` itself when it already ends in
   * `/rpc/v0_10`). `https://`, or `http://` on loopback only.
   */
  rpcUrl: string;
  /** Timeout of one call (connection, answer and body), in ms. */
  timeoutMs: number;
  /** The setting that holds `rpcUrl`, named in the error when it is refused. */
  setting: string;
  fetch?: typeof fetch;
  /** Sees every raw exchange (for operators); must not throw. */
  onExchange?: ((exchange: RpcExchange) => void) | undefined;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
const FELT = /^0x(0|[a-fA-F1-9][a-fA-F0-9]{0,62})$/;

/** A felt in the spec's FELT form: lowercase hex, no leading zeros. */
export function minimalFelt(value: string | bigint): string {
  return `0x${BigInt(value).toString(16)}`;
}

const MASK_250 = (1n << 250n) - 1n;

/**
 * The `entry_point_selector` of a Cairo entry point: starknet_keccak of its name (keccak-256 of the
 * UTF-8 name, its low 250 bits), as a FELT. A few lines of ours, so recognition does not load starknet.js.
 */
export function selectorOf(entrypoint: string): string {
  const digest = keccak_256(new TextEncoder().encode(entrypoint));
  return minimalFelt(BigInt(`0x${hexOfBytes(digest)}`) & MASK_250);
}

/**
 * The JSON-RPC body of a `starknet_call`, positional as the seed writes it (docs/recognition.md,
 * "Configuration").
 */
export function starknetCallBody(
  id: number,
  contractAddress: string,
  entrypoint: string,
  calldata: readonly string[],
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "starknet_call",
    params: [
      {
        contract_address: minimalFelt(contractAddress),
        entry_point_selector: selectorOf(entrypoint),
        calldata: calldata.map(minimalFelt),
      },
      "latest",
    ],
  });
}

/**
 * A read-only Starknet JSON-RPC v0.10 client for `starknet_call` at block `latest`. It sends the
 * seed's positional params (an array of two: the call, then the block id) — starknet.js's provider
 * sends them by name — and computes the selector itself. Every failure is a
 * {@link StarknetRpcFailureError} the caller turns into its own error.
 */
/** The path of the JSON-RPC v0.10 endpoint under a node's base URL. */
export const STARKNET_RPC_PATH = "/rpc/v0_10";

/**
 * The JSON-RPC endpoint of `rpcUrl`: the base URL with {@link STARKNET_RPC_PATH} added, or `rpcUrl`
 * itself when it already ends there (the endpoint as `npm start` prints it); trailing slashes dropped.
 */
export function starknetEndpoint(rpcUrl: string): string {
  const trimmed = rpcUrl.replace(/\/+$/, "");
  return trimmed.endsWith(STARKNET_RPC_PATH) ? trimmed : `${trimmed}${STARKNET_RPC_PATH}`;
}

export class StarknetRpc {
  readonly endpoint: string;
  private nextId = 1;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: StarknetRpcOptions) {
    const base = new URL(options.rpcUrl);
    if (base.protocol !== "https:" && !(base.protocol === "http:" && LOOPBACK_HOSTS.has(base.hostname))) {
      throw new RangeError(
        `${options.setting} must be https:// (plain http only on loopback): ${options.rpcUrl}`,
      );
    }
    this.endpoint = starknetEndpoint(options.rpcUrl);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** Calls `entrypoint` of `contractAddress` with `calldata` (felts); returns the result felts. */
  async call(contractAddress: string, entrypoint: string, calldata: readonly string[]): Promise<string[]> {
    const id = this.nextId++;
    const { result, url, answer } = await this.exchange(
      id,
      starknetCallBody(id, contractAddress, entrypoint, calldata),
    );
    if (!Array.isArray(result) || !result.every((felt) => typeof felt === "string" && FELT.test(felt))) {
      throw new StarknetRpcFailureError("malformed", { url, body: JSON.stringify(answer).slice(0, 200) });
    }
    return result as string[];
  }

  /**
   * Any other method of the API (the payer recorder's `starknet_getNonce`, `starknet_addInvokeTransaction`,
   * `starknet_getTransactionReceipt`), params by name; resolves the `result` as it came, for the caller to
   * read. Failures are {@link StarknetRpcFailureError}s, as for {@link call}.
   */
  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return (await this.exchange(id, JSON.stringify({ jsonrpc: "2.0", id, method, params }))).result;
  }

  private async exchange(
    id: number,
    request: string,
  ): Promise<{ result: unknown; url: string; answer: unknown }> {
    const { url, timeoutMs } = { url: this.endpoint, timeoutMs: this.options.timeoutMs };
    const started = performance.now();
    const report = (exchange: Pick<RpcExchange, "status" | "response">) =>
      this.options.onExchange?.({ url, request, ms: performance.now() - started, ...exchange });
    let status: number | undefined;
    let text: string;
    try {
      const response = await this.fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: request,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      report({ status });
      const timedOut = cause instanceof Error && cause.name === "TimeoutError";
      throw new StarknetRpcFailureError(
        timedOut ? "timeout" : "unreachable",
        { url, timeoutMs, status },
        cause,
      );
    }
    report({ status, response: text });
    if (status < 200 || status > 299) {
      throw new StarknetRpcFailureError("http", { url, status, body: text.slice(0, 200) });
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch (cause) {
      throw new StarknetRpcFailureError("not_json", { url, status, body: text.slice(0, 200) }, cause);
    }
    return { result: readResult(answer, id, url), url, answer };
  }
}

/** The `result` of a JSON-RPC answer, or the failure it carries. */
function readResult(answer: unknown, id: number, url: string): unknown {
  const envelope = (typeof answer === "object" && answer !== null ? answer : {}) as Record<string, unknown>;
  const error = envelope.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (typeof error === "object" && error !== null && typeof error.code === "number") {
    throw new StarknetRpcFailureError("rpc", {
      url,
      code: error.code,
      rpcMessage: typeof error.message === "string" ? error.message : "",
      data: error.data,
    });
  }
  if (envelope.jsonrpc !== "2.0" || envelope.id !== id || !("result" in envelope)) {
    throw new StarknetRpcFailureError("malformed", { url, body: JSON.stringify(answer).slice(0, 200) });
  }
  return envelope.result;
}
