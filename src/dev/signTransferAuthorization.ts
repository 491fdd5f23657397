import { bytesToHex, getAddress, type Hex } from "viem";
import type { LocalAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { AUTHORIZATION_FIELDS } from "../protocol/eip3009AuthorizationFields.js";

export interface SignTransferAuthorizationOptions {
  /** The payer, who signs. */
  account: LocalAccount;
  /** The EIP-3009 token. */
  token: { address: Hex; name: string; version: string };
  chainId: number;
  to: Hex;
  /** Amount in the token's smallest unit. */
  value: bigint;
  /** Seconds since the epoch; default 0. */
  validAfter?: bigint;
  /** Seconds since the epoch. */
  validBefore: bigint;
  /** 32 bytes; default random. */
  nonce?: Hex;
  /** `ReceiveWithAuthorization` (only the payee may submit it) instead of `TransferWithAuthorization`. */
  receive?: boolean;
}

/** An EVM `exact` payment's `payload`: strings, as they travel in a `PaymentPayload`. */
export interface SignedTransferAuthorization {
  signature: Hex;
  authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

export { AUTHORIZATION_FIELDS };

/**
 * Signs an EIP-3009 `TransferWithAuthorization` (or `ReceiveWithAuthorization`) by hand, for payments the official client will not
 * make (e.g. one whose `validBefore` is already past).
 */
export async function signTransferAuthorization(
  options: SignTransferAuthorizationOptions,
): Promise<SignedTransferAuthorization> {
  const primaryType = options.receive ? "ReceiveWithAuthorization" : "TransferWithAuthorization";
  const message = {
    from: options.account.address,
    to: getAddress(options.to),
    value: options.value,
    validAfter: options.validAfter ?? 0n,
    validBefore: options.validBefore,
    nonce: options.nonce ?? bytesToHex(randomBytes(32)),
  };
  const signature = await options.account.signTypedData({
    domain: {
      name: options.token.name,
      version: options.token.version,
      chainId: options.chainId,
      verifyingContract: getAddress(options.token.address),
    },
    types: { [primaryType]: AUTHORIZATION_FIELDS },
    primaryType,
    message,
  });
  return {
    signature,
    authorization: {
      from: message.from,
      to: message.to,
      value: message.value.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
      nonce: message.nonce,
    },
  };
}
