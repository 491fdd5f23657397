import { createHash } from "node:crypto";
import { ec } from "starknet";
import { minimalFelt, selectorOf } from "../../starknet/StarknetRpc.js";
import { IS_VALID_SIGNATURE, SNIP6_VALID } from "../../signers/LayerTwoSigner.js";
import { verifyStarkKeySignature } from "../../signers/verifyStarkKeySignature.js";
import { EST_OUVERTE } from "../../recognition/StarknetRecognizer.js";
import { acceptInvoke } from "./acceptInvoke.js";
import { felt, invalidParams, Refusal, type RpcError, type StandInChain } from "./standInRpcParts.js";

export type { StandInChain } from "./standInRpcParts.js";
export { STAND_IN_RECORD_ENTRYPOINT } from "./acceptInvoke.js";

/** The spec version the stand-in answers `starknet_specVersion` with (the vendored document's). */
export const STAND_IN_SPEC_VERSION = "0.10.2";

// The spec's errors (codes and messages exactly as the OpenRPC document writes them).
const CONTRACT_NOT_FOUND = { code: 20, message: "Contract not found" };
const ENTRYPOINT_NOT_FOUND = { code: 21, message: "Requested entry point does not exist in the contract" };
const BLOCK_NOT_FOUND = { code: 24, message: "Block not found" };
const contractError = (revert: string) => ({
  code: 40,
  message: "Contract error",
  data: { revert_error: revert },
});
const TXN_HASH_NOT_FOUND = { code: 29, message: "Transaction hash not found" };

const EST_OUVERTE_SELECTOR = selectorOf(EST_OUVERTE);
const IS_VALID_SIGNATURE_SELECTOR = selectorOf(IS_VALID_SIGNATURE);

/** The event a registry emits for each recording: keys `[selector("PayerRecorded")]`, data `[payer]`. */
const PAYER_RECORDED_KEY = selectorOf("PayerRecorded");

/** Param names per method, in positional order; `?` marks an optional one. */
const METHODS: Record<string, { params: string[]; run: (chain: StandInChain, p: Params) => unknown }> = {
  starknet_specVersion: { params: [], run: () => STAND_IN_SPEC_VERSION },
  starknet_chainId: { params: [], run: (chain) => chain.chainId },
  starknet_syncing: { params: [], run: () => false },
  starknet_blockNumber: { params: [], run: (chain) => chain.registry.blockNumber() },
  starknet_blockHashAndNumber: {
    params: [],
    run: (chain) => {
      const number = chain.registry.blockNumber();
      return { block_hash: blockHashOf(number), block_number: number };
    },
  },
  starknet_getClassHashAt: {
    params: ["block_id", "contract_address"],
    run: (chain, p) => {
      resolveBlock(chain, p.block_id);
      const address = felt(p.contract_address, "contract_address");
      if (chain.accounts.has(address)) return chain.accountClassHash;
      if (!chain.registries.has(address)) throw new Refusal(CONTRACT_NOT_FOUND);
      return chain.classHash;
    },
  },
  starknet_call: {
    params: ["request", "block_id"],
    run: (chain, p) => {
      const request = p.request;
      if (typeof request !== "object" || request === null || Array.isArray(request)) {
        throw invalidParams("request must be a FUNCTION_CALL object");
      }
      const call = request as Record<string, unknown>;
      const contract = felt(call.contract_address, "request.contract_address");
      const selector = felt(call.entry_point_selector, "request.entry_point_selector");
      if (!Array.isArray(call.calldata)) throw invalidParams("request.calldata must be an array of felts");
      const calldata = call.calldata.map((item, index) => felt(item, `request.calldata[${index}]`));
      const block = resolveBlock(chain, p.block_id);
      const accountKey = chain.accounts.get(contract);
      if (accountKey !== undefined) return isValidSignature(accountKey, selector, calldata);
      if (!chain.registries.has(contract)) throw new Refusal(CONTRACT_NOT_FOUND);
      if (selector !== EST_OUVERTE_SELECTOR) throw new Refusal(ENTRYPOINT_NOT_FOUND);
      if (calldata.length !== 1) {
        throw new Refusal(contractError(`est_ouverte takes 1 argument (payer), got ${calldata.length}`));
      }
      return [chain.registry.isRecorded(contract, calldata[0]!, block) ? "0x1" : "0x0"];
    },
  },
  starknet_getNonce: {
    params: ["block_id", "contract_address"],
    run: (chain, p) => {
      resolveBlock(chain, p.block_id);
      const address = felt(p.contract_address, "contract_address");
      if (chain.accounts.has(address)) return minimalFelt(BigInt(chain.registry.nonceOf(address)));
      if (!chain.registries.has(address)) throw new Refusal(CONTRACT_NOT_FOUND);
      return "0x0";
    },
  },
  starknet_addInvokeTransaction: {
    params: ["invoke_transaction"],
    run: (chain, p) => ({ transaction_hash: acceptInvoke(chain, p.invoke_transaction) }),
  },
  starknet_getTransactionReceipt: {
    params: ["transaction_hash"],
    run: (chain, p) => {
      const transaction = chain.registry.transaction(felt(p.transaction_hash, "transaction_hash"));
      if (transaction === undefined) throw new Refusal(TXN_HASH_NOT_FOUND);
      return {
        type: "INVOKE",
        transaction_hash: transaction.hash,
        actual_fee: { amount: "0x0", unit: "FRI" },
        finality_status: "ACCEPTED_ON_L2",
        execution_status: "SUCCEEDED",
        messages_sent: [],
        events: transaction.recordCalls.map(({ contract, payer }) => ({
          from_address: contract,
          keys: [PAYER_RECORDED_KEY],
          data: [payer],
        })),
        execution_resources: { l1_gas: 0, l1_data_gas: 0, l2_gas: 0 },
        block_hash: blockHashOf(transaction.block),
        block_number: transaction.block,
      };
    },
  },
  starknet_getTransactionStatus: {
    params: ["transaction_hash"],
    run: (chain, p) => {
      const transaction = chain.registry.transaction(felt(p.transaction_hash, "transaction_hash"));
      if (transaction === undefined) throw new Refusal(TXN_HASH_NOT_FOUND);
      return { finality_status: "ACCEPTED_ON_L2", execution_status: "SUCCEEDED" };
    },
  },
};

type Params = Record<string, unknown>;

/**
 * A dev account's SNIP-6 `is_valid_signature(hash, signature: Array<felt252>)`: `VALID` when the
 * signature is `[r, s]` of the account's Stark key over `hash`, `0` otherwise (as OpenZeppelin's
 * account answers); a calldata that is not `[hash, len, ...len felts]` reverts.
 */
function isValidSignature(publicKey: string, selector: string, calldata: string[]): string[] {
  if (selector !== IS_VALID_SIGNATURE_SELECTOR) throw new Refusal(ENTRYPOINT_NOT_FOUND);
  const [hash, length, ...signature] = calldata;
  if (hash === undefined || length === undefined || BigInt(length) !== BigInt(signature.length)) {
    throw new Refusal(contractError("is_valid_signature takes (hash, signature: Array<felt252>)"));
  }
  return [verifyStarkKeySignature(ec.starkCurve, publicKey, hash, signature) ? SNIP6_VALID : "0x0"];
}

/**
 * Answers one JSON-RPC 2.0 body (an object or a batch) the way a Starknet v0.10 node does for the
 * methods the stand-in serves: `result` on success, the spec's error codes for an unknown contract,
 * entry point or block, JSON-RPC's own codes for anything malformed. `undefined`: nothing to answer
 * (notifications only).
 */
export function answerStarknetRpc(body: unknown, chain: StandInChain): unknown {
  if (Array.isArray(body)) {
    if (body.length === 0) return envelope(null, { error: { code: -32600, message: "Invalid Request" } });
    const answers = body.map((item) => answerOne(item, chain)).filter((answer) => answer !== undefined);
    return answers.length === 0 ? undefined : answers;
  }
  return answerOne(body, chain);
}

function answerOne(item: unknown, chain: StandInChain): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return envelope(null, { error: { code: -32600, message: "Invalid Request", data: "not an object" } });
  }
  const request = item as Record<string, unknown>;
  const hasId = "id" in request;
  const id = request.id;
  const validId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null;
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string" || (hasId && !validId)) {
    const data = 'expected jsonrpc "2.0", a string method and a string or number id';
    return envelope(validId ? id : null, { error: { code: -32600, message: "Invalid Request", data } });
  }
  // A notification (no id) is served and never answered, as JSON-RPC 2.0 says.
  const outcome = run(request.method, request.params, chain);
  return hasId ? envelope(id, outcome) : undefined;
}

function run(
  method: string,
  params: unknown,
  chain: StandInChain,
): { result: unknown } | { error: RpcError } {
  const spec = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (spec === undefined) {
    return {
      error: { code: -32601, message: "Method not found", data: `${method} is not served by the stand-in` },
    };
  }
  try {
    return { result: spec.run(chain, byName(spec.params, params)) };
  } catch (error) {
    if (error instanceof Refusal) return { error: error.error };
    throw error;
  }
}

/** Params by position or by name, checked against the method's names; all of them are required. */
function byName(names: string[], params: unknown): Params {
  const out: Params = {};
  if (params === undefined) {
    // no params: fine only for a method that takes none
  } else if (Array.isArray(params)) {
    if (params.length > names.length) {
      throw invalidParams(`expected ${names.length} positional params, got ${params.length}`);
    }
    params.forEach((value, index) => (out[names[index]!] = value));
  } else if (typeof params === "object" && params !== null) {
    for (const [name, value] of Object.entries(params)) {
      if (!names.includes(name)) throw invalidParams(`unknown param "${name}"`);
      out[name] = value;
    }
  } else {
    throw invalidParams("params must be an array or an object");
  }
  const missing = names.find((name) => out[name] === undefined);
  if (missing !== undefined) throw invalidParams(`missing required param "${missing}"`);
  return out;
}

/** The block a BLOCK_ID names (every tag is the latest: nothing is pending here), or BLOCK_NOT_FOUND. */
function resolveBlock(chain: StandInChain, blockId: unknown): number {
  const head = chain.registry.blockNumber();
  if (blockId === "latest" || blockId === "pre_confirmed" || blockId === "l1_accepted") return head;
  if (typeof blockId === "object" && blockId !== null && !Array.isArray(blockId)) {
    const keys = Object.keys(blockId);
    const id = blockId as Record<string, unknown>;
    if (keys.length === 1 && keys[0] === "block_number") {
      const number = id.block_number;
      if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0) {
        throw invalidParams("block_id.block_number must be a non-negative integer");
      }
      if (number > head) throw new Refusal(BLOCK_NOT_FOUND);
      return number;
    }
    if (keys.length === 1 && keys[0] === "block_hash") {
      const hash = felt(id.block_hash, "block_id.block_hash");
      for (let number = head; number >= 0; number--) if (blockHashOf(number) === hash) return number;
      throw new Refusal(BLOCK_NOT_FOUND);
    }
  }
  throw invalidParams(
    'block_id must be "latest", "pre_confirmed", "l1_accepted", {block_number} or {block_hash}',
  );
}

/** A block's hash: a stable felt derived from its number (the stand-in has no real blocks to hash). */
export function blockHashOf(number: number): string {
  const digest = createHash("sha256").update(`x402-gateway layer-2 stand-in block ${number}`).digest("hex");
  return minimalFelt(BigInt(`0x${digest}`) >> 6n);
}

function envelope(id: unknown, outcome: { result: unknown } | { error: RpcError }): unknown {
  return { jsonrpc: "2.0", id, ...outcome };
}
