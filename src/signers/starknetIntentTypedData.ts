import type { QuantifiedClaim } from "../protocol/cbor/Claim.js";
import { hexOfBytes } from "../common/bytes.js";

/** SNIP-12 revision 1 typed data, as starknet.js's `typedData` and Starknet wallets take it. */
export interface StarknetTypedData {
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  domain: { name: string; version: string; chainId: string; revision: string };
  message: Record<string, unknown>;
}

/** The SNIP-12 domain name of payment intents (v0.3). */
export const STARKNET_INTENT_DOMAIN = "x402+cbor payment intent";
export const STARKNET_INTENT_DOMAIN_VERSION = "0.3";

/** A 32-byte value as the SNIP-12 `u256` preset `{ low, high }` (two 128-bit halves, hex). */
function u256Of(value: bigint): { low: string; high: string } {
  const mask = (1n << 128n) - 1n;
  return { low: `0x${(value & mask).toString(16)}`, high: `0x${(value >> 128n).toString(16)}` };
}

function bigintOf(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${hexOfBytes(bytes)}`);
}

/**
 * The payment intent as SNIP-12 typed data (revision 1), what a Starknet wallet shows and signs: every
 * part of the six-part claim but the subject, which is the account address the message hash is bound to
 * (`typedData.getMessageHash(data, subject)`). `chainId` is the layer-2 network's (a short string, e.g.
 * `SN_MAIN`, or `X402_LOCAL` for the local stand-in node).
 */
export function starknetIntentTypedData(claim: QuantifiedClaim, chainId: string): StarknetTypedData {
  return {
    types: {
      StarknetDomain: [
        { name: "name", type: "shortstring" },
        { name: "version", type: "shortstring" },
        { name: "chainId", type: "shortstring" },
        { name: "revision", type: "shortstring" },
      ],
      PaymentIntent: [
        { name: "Predicate", type: "shortstring" },
        { name: "Merchant", type: "string" },
        { name: "Currency", type: "shortstring" },
        { name: "Amount", type: "u256" },
        { name: "Time", type: "timestamp" },
        { name: "Context", type: "u256" },
      ],
    },
    primaryType: "PaymentIntent",
    domain: {
      name: STARKNET_INTENT_DOMAIN,
      version: STARKNET_INTENT_DOMAIN_VERSION,
      chainId,
      revision: "1",
    },
    message: {
      Predicate: claim.predicate,
      Merchant: claim.object,
      Currency: claim.quantity.currency,
      Amount: u256Of(claim.quantity.amount),
      Time: claim.time,
      Context: u256Of(bigintOf(claim.context)),
    },
  };
}

/** The subject's identity bytes as the felt the message hash is bound to. */
export function feltOfIdentity(identity: Uint8Array): string {
  return `0x${bigintOf(identity).toString(16)}`;
}
