import { ec, hash as starknetHash } from "starknet";
import { minimalFelt, selectorOf, type StarknetRpc } from "../../starknet/StarknetRpc.js";
import { StarknetRpcFailureError } from "../../starknet/StarknetRpcFailureError.js";
import { EST_OUVERTE } from "../StarknetRecognizer.js";

/** The account that signs the recordings: its address and its Stark private key (both felts). */
export interface RecorderAccount {
  address: string;
  privateKey: string;
}

/** One resource's bounds in a v3 transaction (felts). */
export interface ResourceBound {
  max_amount: string;
  max_price_per_unit: string;
}

export interface ResourceBounds {
  l1_gas: ResourceBound;
  l1_data_gas: ResourceBound;
  l2_gas: ResourceBound;
}

/**
 * Bounds that cover a few `record_payer` calls on Starknet today (at most about 0.32 STRK per
 * transaction); set `resourceBounds` for your network and your contract.
 */
export const DEFAULT_RESOURCE_BOUNDS: ResourceBounds = {
  l1_gas: { max_amount: "0x0", max_price_per_unit: "0x5af3107a4000" },
  l1_data_gas: { max_amount: "0x600", max_price_per_unit: "0x5af3107a4000" },
  l2_gas: { max_amount: "0x1000000", max_price_per_unit: "0x2540be400" },
};

/** Where a sent transaction stands, as the node tells it. */
export type TransactionState = "succeeded" | "reverted" | "pending" | "not_found";

/** One call of the account's multicall. */
export interface ContractCall {
  contract: string;
  entrypoint: string;
  calldata: readonly string[];
}

/** A signed v3 invoke transaction, as `starknet_addInvokeTransaction` takes it, and its hash. */
export interface SignedInvoke {
  hash: string;
  transaction: Record<string, unknown>;
}

const TXN_HASH_NOT_FOUND = 29;

/**
 * Sends invoke transactions from one account over Starknet JSON-RPC v0.10 (the project's client:
 * positional-free params by name), signed with starknet.js (the v3 transaction hash and the Stark curve).
 * Its calls are a Cairo 1 account's `__execute__` multicall.
 */
export class StarknetInvoker {
  private chainId: string | undefined;
  readonly address: string;

  constructor(
    private readonly rpc: StarknetRpc,
    private readonly account: RecorderAccount,
    private readonly bounds: ResourceBounds = DEFAULT_RESOURCE_BOUNDS,
  ) {
    this.address = minimalFelt(account.address);
  }

  /** The account's next nonce, counting what the node has pre-confirmed. */
  async nonce(): Promise<string> {
    const nonce = await this.rpc.request("starknet_getNonce", {
      block_id: "pre_confirmed",
      contract_address: this.address,
    });
    return minimalFelt(feltResult(nonce, "starknet_getNonce", this.rpc.endpoint));
  }

  /** Signs `calls` at `nonce` (a felt). */
  async sign(calls: readonly ContractCall[], nonce: string): Promise<SignedInvoke> {
    this.chainId ??= feltResult(
      await this.rpc.request("starknet_chainId", {}),
      "starknet_chainId",
      this.rpc.endpoint,
    );
    const calldata = [
      minimalFelt(BigInt(calls.length)),
      ...calls.flatMap((call) => [
        minimalFelt(call.contract),
        selectorOf(call.entrypoint),
        minimalFelt(BigInt(call.calldata.length)),
        ...call.calldata.map(minimalFelt),
      ]),
    ];
    const hash = minimalFelt(
      starknetHash.calculateInvokeTransactionHash({
        senderAddress: this.address,
        version: "0x3",
        compiledCalldata: calldata,
        chainId: this.chainId as never,
        nonce,
        accountDeploymentData: [],
        nonceDataAvailabilityMode: 0 as never,
        feeDataAvailabilityMode: 0 as never,
        resourceBounds: this.bounds as never,
        tip: "0x0",
        paymasterData: [],
      }),
    );
    const signature = ec.starkCurve.sign(hash, this.account.privateKey);
    return {
      hash,
      transaction: {
        type: "INVOKE",
        sender_address: this.address,
        calldata,
        version: "0x3",
        signature: [minimalFelt(signature.r), minimalFelt(signature.s)],
        nonce,
        resource_bounds: this.bounds,
        tip: "0x0",
        paymaster_data: [],
        account_deployment_data: [],
        nonce_data_availability_mode: "L1",
        fee_data_availability_mode: "L1",
      },
    };
  }

  /** Sends a signed transaction; resolves the hash the node answers. */
  async send(transaction: Record<string, unknown>): Promise<string> {
    const result = await this.rpc.request("starknet_addInvokeTransaction", {
      invoke_transaction: transaction,
    });
    const hash = (result as { transaction_hash?: unknown } | null)?.transaction_hash;
    return minimalFelt(feltResult(hash, "starknet_addInvokeTransaction", this.rpc.endpoint));
  }

  /** Where the transaction `hash` stands: not found, still pending, or executed (succeeded or reverted). */
  async state(hash: string): Promise<{ state: TransactionState; reason?: string }> {
    let result: unknown;
    try {
      result = await this.rpc.request("starknet_getTransactionStatus", { transaction_hash: hash });
    } catch (error) {
      if (error instanceof StarknetRpcFailureError && error.details.code === TXN_HASH_NOT_FOUND) {
        return { state: "not_found" };
      }
      throw error;
    }
    const status = (result ?? {}) as {
      finality_status?: unknown;
      execution_status?: unknown;
      failure_reason?: unknown;
    };
    if (status.execution_status === "SUCCEEDED") return { state: "succeeded" };
    if (status.execution_status === "REVERTED") {
      return {
        state: "reverted",
        reason: typeof status.failure_reason === "string" ? status.failure_reason : "",
      };
    }
    return { state: "pending" };
  }

  /** Whether `est_ouverte(payer)` of `contract` already answers `0x1`. */
  async isRecorded(contract: string, payer: string): Promise<boolean> {
    const [answer] = await this.rpc.call(contract, EST_OUVERTE, [payer]);
    return answer !== undefined && BigInt(answer) === 1n;
  }
}

function feltResult(value: unknown, method: string, url: string): string {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    throw new StarknetRpcFailureError("malformed", {
      url,
      body: `${method}: ${JSON.stringify(value)}`.slice(0, 200),
    });
  }
  return value;
}
