import type { PaymentRequired } from "@x402/core/types";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import type { PrivateKeyAccount } from "viem/accounts";

/** Reads a fresh challenge from `gatewayUrl + path` and answers it as the official client would. */
export async function signInHeader(
  account: PrivateKeyAccount,
  gatewayUrl: string,
  path: string,
  publicUrl: string,
): Promise<string> {
  const offer = await fetch(`${gatewayUrl}${path}`);
  if (offer.status !== 402) throw new Error(`expected a 402 challenge, got ${offer.status}`);
  const paymentRequired = (await offer.json()) as PaymentRequired;
  const proof = await createSIWxClientHook(account)({ paymentRequired, requestUrl: `${publicUrl}${path}` });
  const header = proof?.headers["SIGN-IN-WITH-X"] ?? proof?.headers["sign-in-with-x"];
  if (!header) throw new Error("the offer carried no sign-in challenge");
  return header;
}
