import type { QuantifiedClaim } from "../protocol/cbor/Claim.js";
import { STARKNET_INTENT_DOMAIN, STARKNET_INTENT_DOMAIN_VERSION } from "./starknetIntentTypedData.js";
import { hexOfBytes } from "../common/bytes.js";

/** The EIP-712 types of a payment intent (v0.3): every part of the six-part claim. */
export const EVM_INTENT_TYPES = {
  PaymentIntent: [
    { name: "payer", type: "address" },
    { name: "predicate", type: "string" },
    { name: "merchant", type: "string" },
    { name: "currency", type: "string" },
    { name: "amount", type: "uint256" },
    { name: "time", type: "uint64" },
    { name: "context", type: "bytes32" },
  ],
} as const;

/** EIP-712 typed data, in the shape viem's `hashTypedData` / `recoverTypedDataAddress` take. */
export interface EvmTypedData {
  domain: { name: string; version: string; chainId: number };
  types: typeof EVM_INTENT_TYPES;
  primaryType: "PaymentIntent";
  message: {
    payer: `0x${string}`;
    predicate: string;
    merchant: string;
    currency: string;
    amount: bigint;
    time: bigint;
    context: `0x${string}`;
  };
}

const hex = (bytes: Uint8Array): `0x${string}` => `0x${hexOfBytes(bytes)}`;

/**
 * The payment intent as EIP-712 typed data, what an EVM wallet shows and signs (`eth_signTypedData_v4`):
 * the domain `{ name: "x402+cbor payment intent", version: "0.3", chainId }` (no verifying contract: the
 * intent is a message, not a call) and every claim part, the subject as `payer`. `chainId` is the EVM
 * chain the gateway's `network` names (`eip155:<chainId>`).
 */
export function evmIntentTypedData(claim: QuantifiedClaim, chainId: number): EvmTypedData {
  return {
    domain: { name: STARKNET_INTENT_DOMAIN, version: STARKNET_INTENT_DOMAIN_VERSION, chainId },
    types: EVM_INTENT_TYPES,
    primaryType: "PaymentIntent",
    message: {
      payer: hex(claim.subject),
      predicate: claim.predicate,
      merchant: claim.object,
      currency: claim.quantity.currency,
      amount: claim.quantity.amount,
      time: BigInt(claim.time),
      context: hex(claim.context),
    },
  };
}
