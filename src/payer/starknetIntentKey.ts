import { decodeQuantifiedClaim } from "../protocol/cbor/Claim.js";
import { feltOfIdentity, starknetIntentTypedData } from "../signers/starknetIntentTypedData.js";
import { encodeStarknetSignature } from "../signers/starknetSignatureWords.js";
import type { IntentKey } from "./IntentKey.js";

export interface StarknetIntentKeyOptions {
  /** The Stark private key (felt hex). */
  privateKey: string;
  /**
   * The contract account it signs for (felt hex): the intent's subject is then `starknet-account`,
   * checked by the account's SNIP-6 `is_valid_signature`. Without it the subject is the Stark key
   * itself (`starknet-key`), checked offline.
   */
  account?: string | undefined;
  /** The SNIP-12 domain's chain id the gateway verifies under (`SN_MAIN`; the local stack: `X402_LOCAL`). */
  chainId: string;
}

/** A felt (hex) as the 32 bytes of a subject identity. */
function feltBytes(felt: string): Uint8Array {
  return new Uint8Array(Buffer.from(BigInt(felt).toString(16).padStart(64, "0"), "hex"));
}

/**
 * A LayerTwoSigner payer: signs each intent as SNIP-12 typed data (the way a Starknet wallet signs a
 * message) with a Stark key, for a contract account or for the key itself. Loads starknet.js on creation.
 */
export async function starknetIntentKey(options: StarknetIntentKeyOptions): Promise<IntentKey> {
  const { typedData, ec } = await import("starknet");
  const starkKey = ec.starkCurve.getStarkKey(options.privateKey);
  const publicKey = feltBytes(options.account ?? starkKey);
  const subject = feltOfIdentity(publicKey);
  return {
    publicKey,
    signer: options.account === undefined ? "starknet-key" : "starknet-account",
    sign(paymentIntent) {
      const claim = decodeQuantifiedClaim(paymentIntent);
      const hash = typedData.getMessageHash(
        starknetIntentTypedData(claim, options.chainId) as never,
        subject,
      );
      const signature = ec.starkCurve.sign(hash, options.privateKey);
      return encodeStarknetSignature([signature.r, signature.s]);
    },
  };
}
