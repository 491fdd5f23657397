import { ec, hash as starknetHash } from "starknet";
import { minimalFelt, selectorOf } from "../../starknet/StarknetRpc.js";
import { verifyStarkKeySignature } from "../../signers/verifyStarkKeySignature.js";
import { felt, invalidParams, Refusal, type StandInChain } from "./standInRpcParts.js";

// The write API's errors (starknet_write_api.json of the same version).
const INVALID_TRANSACTION_NONCE = (data: string) => ({
  code: 52,
  message: "Invalid transaction nonce",
  data,
});
const VALIDATION_FAILURE = (data: string) => ({ code: 55, message: "Account validation failed", data });
const NON_ACCOUNT = { code: 58, message: "Sender address is not an account contract" };
const DUPLICATE_TX = { code: 59, message: "A transaction with the same hash already exists in the mempool" };
const UNSUPPORTED_TX_VERSION = { code: 61, message: "the transaction version is not supported" };

/** The registry contracts' recording entry point, `record_payer(payer: felt252)`: what a recorder invokes. */
export const STAND_IN_RECORD_ENTRYPOINT = "record_payer";
const RECORD_SELECTOR = selectorOf(STAND_IN_RECORD_ENTRYPOINT);

const RESOURCES = ["l1_gas", "l1_data_gas", "l2_gas"] as const;
const DA_MODES: Record<string, number> = { L1: 0, L2: 1 };

/**
 * Admits one v3 invoke transaction as a sequencer would before it executes it: a known account as sender,
 * its next nonce, a hash not seen before, and `[r, s]` of the account's Stark key over the transaction's
 * hash (what the dev accounts' `__validate__` checks). Its calls must each be `record_payer(payer)` on a
 * registry contract (nothing else executes here: any other call is refused before it is accepted, where a
 * chain would revert it). Accepted, it is its own block. Answers the transaction hash.
 */
export function acceptInvoke(chain: StandInChain, value: unknown): string {
  const tx = object(value, "invoke_transaction");
  if (tx.type !== "INVOKE") throw invalidParams('invoke_transaction.type must be "INVOKE"');
  if (tx.version !== "0x3") throw new Refusal(UNSUPPORTED_TX_VERSION);
  const sender = felt(tx.sender_address, "invoke_transaction.sender_address");
  const nonce = felt(tx.nonce, "invoke_transaction.nonce");
  const calldata = felts(tx.calldata, "invoke_transaction.calldata");
  const signature = felts(tx.signature, "invoke_transaction.signature");
  const bounds = object(tx.resource_bounds, "invoke_transaction.resource_bounds");
  const resourceBounds = Object.fromEntries(
    RESOURCES.map((name) => {
      const bound = object(bounds[name], `invoke_transaction.resource_bounds.${name}`);
      return [
        name,
        {
          max_amount: felt(bound.max_amount, `resource_bounds.${name}.max_amount`),
          max_price_per_unit: felt(bound.max_price_per_unit, `resource_bounds.${name}.max_price_per_unit`),
        },
      ];
    }),
  );
  const tip = felt(tx.tip, "invoke_transaction.tip");
  const paymasterData = felts(tx.paymaster_data, "invoke_transaction.paymaster_data");
  const accountDeploymentData = felts(
    tx.account_deployment_data,
    "invoke_transaction.account_deployment_data",
  );
  const nonceMode = DA_MODES[String(tx.nonce_data_availability_mode)];
  const feeMode = DA_MODES[String(tx.fee_data_availability_mode)];
  if (nonceMode === undefined || feeMode === undefined) {
    throw invalidParams('the data availability modes must be "L1" or "L2"');
  }
  const publicKey = chain.accounts.get(sender);
  if (publicKey === undefined) throw new Refusal(NON_ACCOUNT);
  const expected = chain.registry.nonceOf(sender);
  if (BigInt(nonce) !== BigInt(expected)) {
    throw new Refusal(
      INVALID_TRANSACTION_NONCE(`account ${sender} expects nonce ${expected}, got ${BigInt(nonce)}`),
    );
  }
  const hash = minimalFelt(
    starknetHash.calculateInvokeTransactionHash({
      senderAddress: sender,
      version: "0x3",
      compiledCalldata: calldata,
      chainId: chain.chainId as never,
      nonce,
      accountDeploymentData,
      nonceDataAvailabilityMode: nonceMode as never,
      feeDataAvailabilityMode: feeMode as never,
      resourceBounds: resourceBounds as never,
      tip,
      paymasterData,
    }),
  );
  if (chain.registry.transaction(hash) !== undefined) throw new Refusal(DUPLICATE_TX);
  if (!verifyStarkKeySignature(ec.starkCurve, publicKey, hash, signature)) {
    throw new Refusal(VALIDATION_FAILURE(`the signature is not the account's key over ${hash}`));
  }
  const recordCalls = recordCallsOf(chain, calldata);
  chain.registry.acceptInvoke(hash, sender, Number(BigInt(nonce)), recordCalls);
  return hash;
}

/** The calls of a Cairo 1 account's `__execute__` calldata: `[n, (to, selector, len, ...args) × n]`. */
function recordCallsOf(chain: StandInChain, calldata: string[]): Array<{ contract: string; payer: string }> {
  const refuse = (why: string) => new Refusal(VALIDATION_FAILURE(why));
  const count = Number(BigInt(calldata[0] ?? "0x0"));
  if (count < 1 || count > 100) throw refuse("the calldata must hold 1 to 100 calls");
  const calls: Array<{ contract: string; payer: string }> = [];
  let at = 1;
  for (let index = 0; index < count; index++) {
    const [to, selector, length, payer] = calldata.slice(at, at + 4);
    if (to === undefined || selector === undefined || length === undefined)
      throw refuse("calldata ends mid-call");
    if (
      !chain.registries.has(to) ||
      selector !== RECORD_SELECTOR ||
      BigInt(length) !== 1n ||
      payer === undefined
    ) {
      throw refuse(
        `call ${index}: only ${STAND_IN_RECORD_ENTRYPOINT}(payer) on a registry contract executes here`,
      );
    }
    calls.push({ contract: to, payer });
    at += 4;
  }
  if (at !== calldata.length) throw refuse("calldata has felts after its last call");
  return calls;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidParams(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function felts(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length > 10_000)
    throw invalidParams(`${where} must be an array of felts`);
  return value.map((item, index) => felt(item, `${where}[${index}]`));
}
