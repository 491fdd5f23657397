import {
  selectorOf,
  type RpcErrorAnswer,
  type StarknetCallHandler,
  type StarknetCallRequest,
} from "../../support/starknetRpcServer.js";

type Felt = string | bigint | number;

/**
 * Contract views answered from a table, for the shared Starknet JSON-RPC node double: the key is
 * (contract, entry point, calldata) compared as numbers; a missing entry answers ENTRYPOINT_NOT_FOUND.
 */
export class ContractViewTable {
  private readonly entries = new Map<string, string[]>();

  set(contract: Felt, entrypoint: string, calldata: Felt[], result: Felt[]): this {
    this.entries.set(key(contract, selectorOf(entrypoint), calldata), result.map(hex));
    return this;
  }

  delete(contract: Felt, entrypoint: string, calldata: Felt[]): this {
    this.entries.delete(key(contract, selectorOf(entrypoint), calldata));
    return this;
  }

  readonly handler: StarknetCallHandler = (request: StarknetCallRequest): string[] | RpcErrorAnswer => {
    const result = this.entries.get(
      key(request.contractAddress, request.entryPointSelector, request.calldata),
    );
    return result ?? { error: { code: 21, message: "Requested entrypoint does not exist in the contract" } };
  };
}

/** The entry point names of the recorded calls, decoded from their selectors. */
export function entrypointNames(calls: StarknetCallRequest[], names: string[]): string[] {
  const bySelector = new Map(names.map((name) => [BigInt(selectorOf(name)), name]));
  return calls.map((c) => bySelector.get(BigInt(c.entryPointSelector)) ?? c.entryPointSelector);
}

function hex(value: Felt): string {
  return "0x" + BigInt(value).toString(16);
}

function key(contract: Felt, selector: Felt, calldata: Felt[]): string {
  return [contract, selector, ...calldata].map((v) => BigInt(v).toString(16)).join(":");
}
