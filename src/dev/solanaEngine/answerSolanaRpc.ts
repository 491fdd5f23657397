import { address as toAddress, getBase64Decoder, type Address } from "@solana/kit";
import { decodeMintDecimals, decodeTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "./splAccounts.js";
import { fromBase64, TransactionRefused, type LocalSolanaChain } from "./LocalSolanaChain.js";

/** Devnet's genesis hash: the engine answers as devnet so the official clients accept its network id. */
export const DEVNET_GENESIS_HASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG";

type RpcError = { code: number; message: string };
class Refusal extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }
}

const invalidParams = (message: string) =>
  new Refusal({ code: -32602, message: `Invalid params: ${message}` });
const base64 = getBase64Decoder();

/** The JSON-RPC methods the engine answers, as a Solana node does (the subset the x402 clients use). */
export const SOLANA_RPC_METHODS = [
  "getAccountInfo",
  "getBalance",
  "getBlockHeight",
  "getGenesisHash",
  "getHealth",
  "getLatestBlockhash",
  "getMinimumBalanceForRentExemption",
  "getMultipleAccounts",
  "getSignatureStatuses",
  "getSignaturesForAddress",
  "getSlot",
  "getTokenAccountBalance",
  "getTransaction",
  "getVersion",
  "isBlockhashValid",
  "sendTransaction",
  "simulateTransaction",
] as const;

/**
 * One JSON-RPC request's answer (`{ jsonrpc, id, result }` or `{ jsonrpc, id, error }`). `onUnknown` hears
 * each method the engine does not answer, so a new client's needs show up in the log.
 */
export function answerSolanaRpc(
  chain: LocalSolanaChain,
  request: unknown,
  onUnknown?: (method: string) => void,
): Record<string, unknown> {
  const {
    id = null,
    method,
    params = [],
  } = (request ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
  try {
    if (typeof method !== "string") throw new Refusal({ code: -32600, message: "Invalid request" });
    if (!Array.isArray(params)) throw invalidParams("expected an array");
    const result = answer(chain, method, params, onUnknown);
    return { jsonrpc: "2.0", id, result };
  } catch (error) {
    const rpcError =
      error instanceof Refusal
        ? error.error
        : { code: -32603, message: `Internal error: ${(error as Error).message}` };
    return { jsonrpc: "2.0", id, error: rpcError };
  }
}

function answer(
  chain: LocalSolanaChain,
  method: string,
  params: unknown[],
  onUnknown?: (method: string) => void,
): unknown {
  const context = { slot: chain.slot(), apiVersion: "2.3.0" };
  const withContext = (value: unknown) => ({ context, value });
  const config = (index: number) => (params[index] ?? {}) as Record<string, unknown>;
  switch (method) {
    case "getHealth":
      return "ok";
    case "getVersion":
      return { "solana-core": "2.3.0", "feature-set": 0 };
    case "getGenesisHash":
      return DEVNET_GENESIS_HASH;
    case "getSlot":
    case "getBlockHeight":
      return chain.slot();
    case "getLatestBlockhash":
      return withContext(chain.latestBlockhash());
    case "isBlockhashValid":
      return withContext(chain.isBlockhashValid(stringParam(params, 0)));
    case "getMinimumBalanceForRentExemption":
      return chain.svm.minimumBalanceForRentExemption(BigInt(Number(params[0] ?? 0)));
    case "getBalance":
      return withContext(chain.svm.getBalance(addressParam(params, 0)) ?? 0n);
    case "getAccountInfo":
      return withContext(accountInfo(chain, addressParam(params, 0), config(1).encoding));
    case "getMultipleAccounts": {
      const list = params[0];
      if (!Array.isArray(list)) throw invalidParams("expected an array of addresses");
      return withContext(list.map((item) => accountInfo(chain, asAddress(item), config(1).encoding)));
    }
    case "getTokenAccountBalance": {
      const account = chain.svm.getAccount(addressParam(params, 0));
      const token = account.exists ? decodeTokenAccount(account.data as Uint8Array) : undefined;
      if (!token) throw invalidParams("Invalid param: not a Token account");
      return withContext(tokenAmount(token.amount, mintDecimals(chain, token.mint)));
    }
    case "sendTransaction": {
      const wire = wireParam(params, config(1).encoding);
      try {
        return chain.send(wire).signature;
      } catch (error) {
        if (error instanceof TransactionRefused)
          throw new Refusal({ code: -32002, message: `Transaction simulation failed: ${error.message}` });
        throw error;
      }
    }
    case "simulateTransaction": {
      const options = config(1);
      const wire = wireParam(params, options.encoding);
      let outcome;
      try {
        outcome = chain.simulate(wire, options.sigVerify === true);
      } catch (error) {
        if (error instanceof TransactionRefused) throw invalidParams(error.message);
        throw error;
      }
      return withContext({
        err: outcome.err,
        logs: outcome.logs,
        accounts: null,
        unitsConsumed: outcome.unitsConsumed,
        returnData: null,
        ...(options.innerInstructions === true ? { innerInstructions: [] } : {}),
      });
    }
    case "getSignatureStatuses": {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw invalidParams("expected an array of signatures");
      return withContext(
        signatures.map((signature) => {
          const landed = chain.transaction(String(signature));
          if (!landed) return null;
          return {
            slot: landed.slot,
            confirmations: null,
            err: landed.err,
            status: landed.err === null ? { Ok: null } : { Err: landed.err },
            confirmationStatus: "finalized",
          };
        }),
      );
    }
    case "getSignaturesForAddress": {
      const limit = Number(config(1).limit ?? 1000);
      return chain
        .signaturesFor(addressParam(params, 0))
        .slice(0, Math.max(0, Math.min(limit, 1000)))
        .map((landed) => ({
          signature: landed.signature,
          slot: landed.slot,
          err: landed.err,
          memo: null,
          blockTime: null,
          confirmationStatus: "finalized",
        }));
    }
    case "getTransaction": {
      const landed = chain.transaction(stringParam(params, 0));
      if (!landed) return null;
      return {
        slot: landed.slot,
        blockTime: null,
        version: 0,
        transaction: [base64.decode(landed.wire), "base64"],
        meta: {
          err: landed.err,
          status: landed.err === null ? { Ok: null } : { Err: landed.err },
          fee: 5000,
          logMessages: landed.logs,
          computeUnitsConsumed: landed.unitsConsumed,
          innerInstructions: [],
          preBalances: [],
          postBalances: [],
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
          loadedAddresses: { writable: [], readonly: [] },
        },
      };
    }
    default:
      onUnknown?.(method);
      throw new Refusal({ code: -32601, message: "Method not found" });
  }
}

function accountInfo(chain: LocalSolanaChain, address: Address, encoding: unknown): unknown {
  const account = chain.svm.getAccount(address);
  if (!account.exists) return null;
  const data = account.data as Uint8Array;
  const owner = String(account.programAddress);
  const common = {
    executable: account.executable,
    lamports: account.lamports,
    owner,
    rentEpoch: 18446744073709551615n,
    space: BigInt(data.length),
  };
  if (encoding === "jsonParsed" && (owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM)) {
    const program = owner === TOKEN_PROGRAM ? "spl-token" : "spl-token-2022";
    const token = decodeTokenAccount(data);
    if (token && data.length !== 82) {
      const info = {
        mint: token.mint,
        owner: token.owner,
        state: "initialized",
        isNative: false,
        tokenAmount: tokenAmount(token.amount, mintDecimals(chain, token.mint)),
      };
      return { ...common, data: { program, parsed: { type: "account", info }, space: data.length } };
    }
    const decimals = decodeMintDecimals(data);
    if (decimals !== undefined) {
      const info = {
        decimals,
        isInitialized: true,
        supply: new DataView(data.buffer, data.byteOffset).getBigUint64(36, true).toString(),
      };
      return { ...common, data: { program, parsed: { type: "mint", info }, space: data.length } };
    }
  }
  return { ...common, data: [base64.decode(data), "base64"] };
}

function mintDecimals(chain: LocalSolanaChain, mint: Address): number {
  const account = chain.svm.getAccount(mint);
  return (account.exists ? decodeMintDecimals(account.data as Uint8Array) : undefined) ?? 0;
}

function tokenAmount(amount: bigint, decimals: number) {
  const text = amount.toString().padStart(decimals + 1, "0");
  const uiAmountString =
    decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`.replace(/\.?0+$/, "");
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function stringParam(params: unknown[], index: number): string {
  const value = params[index];
  if (typeof value !== "string") throw invalidParams(`parameter ${index} must be a string`);
  return value;
}

function asAddress(value: unknown): Address {
  try {
    return toAddress(String(value));
  } catch {
    throw invalidParams(`Invalid param: ${JSON.stringify(value)} is not an address`);
  }
}

function addressParam(params: unknown[], index: number): Address {
  return asAddress(stringParam(params, index));
}

/** The transaction parameter: base64 (what the x402 clients send) or, by default on Solana, base58. */
function wireParam(params: unknown[], encoding: unknown): Uint8Array {
  const text = stringParam(params, 0);
  if (encoding !== "base64") throw invalidParams("only base64-encoded transactions are accepted here");
  return fromBase64(text);
}
