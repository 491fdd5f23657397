import { decodeQuantifiedClaim } from "../protocol/cbor/Claim.js";
import { evmIntentTypedData } from "../signers/evmIntentTypedData.js";
import type { IntentKey } from "./IntentKey.js";

export interface EvmIntentKeyOptions {
  /** The EOA's private key (32 bytes hex, `0x…`), e.g. an anvil dev account's. */
  privateKey: `0x${string}`;
  /** The EIP-712 domain's chain id the gateway verifies under (its `network`, `eip155:<chainId>`). */
  chainId: number;
  /**
   * An EIP-1271 contract wallet the key owns (`0x…`, 20 bytes): the subject is then the wallet, and the key
   * signs the intent's EIP-712 digest with the wallet as `payer` (what the wallet's `isValidSignature` is
   * asked about).
   */
  wallet?: `0x${string}`;
}

/**
 * An EvmSigner payer: signs each intent as EIP-712 typed data (what `eth_signTypedData_v4` signs) with
 * an EOA key; the subject is `["evm", address]`, the EOA's or the contract `wallet`'s it owns. Loads viem
 * on creation.
 */
export async function evmIntentKey(options: EvmIntentKeyOptions): Promise<IntentKey> {
  const { hashTypedData } = await import("viem");
  const { privateKeyToAddress } = await import("viem/accounts");
  const { secp256k1 } = await import("@noble/curves/secp256k1");
  const address = options.wallet ?? privateKeyToAddress(options.privateKey);
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new RangeError(`not an EVM address: ${address}`);
  const secret = options.privateKey.slice(2);
  return {
    publicKey: new Uint8Array(Buffer.from(address.slice(2), "hex")),
    signer: "evm",
    sign(paymentIntent) {
      const claim = decodeQuantifiedClaim(paymentIntent);
      const hash = hashTypedData(evmIntentTypedData(claim, options.chainId)).slice(2);
      const signature = secp256k1.sign(hash, secret, { lowS: true });
      const bytes = new Uint8Array(65);
      bytes.set(signature.toCompactRawBytes(), 0);
      bytes[64] = 27 + signature.recovery;
      return bytes;
    },
  };
}
