import { decodePaymentRequiredHeader } from "@x402/core/http";
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtensionInfo } from "@x402/extensions/sign-in-with-x";
import type { PrivateKeyAccount } from "viem/accounts";

/**
 * A SIGN-IN-WITH-X header answering the challenge of a 402's `PAYMENT-REQUIRED` header, signed with the
 * official helpers for `resourceUrl`; with the challenge's nonce.
 */
export async function siwxSignIn(
  paymentRequired: string,
  account: PrivateKeyAccount,
  resourceUrl: string,
): Promise<{ header: string; nonce: string }> {
  const required = decodePaymentRequiredHeader(paymentRequired);
  const extension = required.extensions?.["sign-in-with-x"] as {
    info: SIWxExtensionInfo;
    supportedChains: Array<{ chainId: string; type: "eip191" }>;
  };
  const chain = extension.supportedChains[0]!;
  const payload = await createSIWxPayload(
    { ...extension.info, chainId: chain.chainId, type: chain.type },
    account,
    resourceUrl,
  );
  return { header: encodeSIWxHeader(payload), nonce: extension.info.nonce };
}
