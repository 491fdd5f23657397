import { createHash } from "node:crypto";
import { ec, hash } from "starknet";
import { minimalFelt } from "../starknet/StarknetRpc.js";

/** One layer-2 dev account: a Stark key pair and the contract account the stand-in deploys for it. */
export interface StarknetDevAccount {
  /** Felt hex; public, well known: test keys for the local stand-in, never for anything of value. */
  privateKey: string;
  /** The Stark public key (x coordinate), felt hex. */
  publicKey: string;
  /** The account contract's address, felt hex. */
  address: string;
}

/** The class hash the stand-in answers for its dev accounts (they run no Cairo: see answerStarknetRpc). */
export const STAND_IN_ACCOUNT_CLASS_HASH = minimalFelt(
  hash.getSelectorFromName("x402_gateway_local_dev_account_class"),
);

/** How many dev accounts the stand-in deploys at start (index 0 is the demo payer's). */
export const STARKNET_DEV_ACCOUNT_COUNT = 3;

/** The account address of a Stark key on the stand-in: as a deploy-account with salt = key would place it. */
export function starknetAccountAddress(publicKey: string): string {
  return minimalFelt(
    hash.calculateContractAddressFromHash(publicKey, STAND_IN_ACCOUNT_CLASS_HASH, [publicKey], 0),
  );
}

/** A Stark key pair and its account from a private key (felt hex). */
export function starknetAccountOf(privateKey: string): StarknetDevAccount {
  const publicKey = minimalFelt(ec.starkCurve.getStarkKey(privateKey));
  return { privateKey: minimalFelt(privateKey), publicKey, address: starknetAccountAddress(publicKey) };
}

/**
 * Dev account `index`: its private key is SHA-256 of `x402-gateway local layer-2 dev account <index>`,
 * reduced to the Stark curve's order (a public seed, like anvil's dev accounts).
 */
export function starknetDevAccount(index: number): StarknetDevAccount {
  const digest = createHash("sha256").update(`x402-gateway local layer-2 dev account ${index}`).digest("hex");
  const order = ec.starkCurve.CURVE.n;
  return starknetAccountOf(minimalFelt((BigInt(`0x${digest}`) % (order - 1n)) + 1n));
}

/** The facilitator account of a layer-2 dev account: its `starknet-account` subject. */
export function starknetDevPayerAccount(account: StarknetDevAccount): {
  publicKey: Uint8Array;
  signer: "starknet-account";
} {
  return {
    publicKey: new Uint8Array(Buffer.from(BigInt(account.address).toString(16).padStart(64, "0"), "hex")),
    signer: "starknet-account",
  };
}
