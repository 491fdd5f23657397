import { BaseError } from "../common/BaseError.js";

/**
 * How a `starknet_call` failed: the node could not be reached (`unreachable`, `timeout`), answered
 * badly (`http`, `not_json`, `malformed`), or answered a JSON-RPC error (`rpc`, with its code).
 */
export type StarknetRpcFailureKind = "unreachable" | "timeout" | "http" | "not_json" | "malformed" | "rpc";

export interface StarknetRpcFailureDetails {
  url: string;
  timeoutMs?: number;
  status?: number | undefined;
  /** The start of the answer's body, for `http`, `not_json` and `malformed`. */
  body?: string;
  /** The JSON-RPC error, for `rpc`. */
  code?: number;
  rpcMessage?: string;
  data?: unknown;
}

const DESCRIBE: Record<StarknetRpcFailureKind, (d: StarknetRpcFailureDetails) => string> = {
  unreachable: (d) => `could not reach ${d.url}`,
  timeout: (d) => `no answer from ${d.url} within ${d.timeoutMs} ms`,
  http: (d) => `${d.url} answered HTTP ${d.status}`,
  not_json: (d) => `${d.url} answered something that is not JSON`,
  malformed: (d) => `${d.url} answered something that is not a starknet_call result`,
  rpc: (d) => `starknet_call failed: ${d.code} ${d.rpcMessage}`,
};

/** A failed `starknet_call` (see {@link StarknetRpc}); callers turn it into their own error. */
export class StarknetRpcFailureError extends BaseError {
  declare readonly details: StarknetRpcFailureDetails & Record<string, unknown>;

  constructor(
    readonly kind: StarknetRpcFailureKind,
    details: StarknetRpcFailureDetails,
    cause?: unknown,
  ) {
    super(`starknet_rpc_${kind}`, DESCRIBE[kind](details), { details: { ...details }, cause });
  }

  /** True when the node itself failed (not reachable, or not answering JSON-RPC). */
  get isTransport(): boolean {
    return this.kind !== "rpc" && this.kind !== "malformed";
  }
}
