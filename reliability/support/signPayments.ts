import { x402Client, x402HTTPClient } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** Signs fresh `PAYMENT-SIGNATURE` headers with the official x402 client (each one a new EIP-3009 nonce). */
export interface PaymentSigner {
  /** Reads `url`'s 402 offer once; the returned function signs a new payment for it at each call. */
  forOffer(url: string): Promise<() => Promise<string>>;
  /** `count` distinct payments for `url`'s offer. */
  sign(url: string, count: number): Promise<string[]>;
}

export function paymentSigner(privateKey: Hex, network: string, asset: Hex): PaymentSigner {
  const client = new x402Client()
    .register("eip155:*", new ExactEvmScheme(privateKeyToAccount(privateKey)))
    .setSpendControls({ allowedAssets: [{ network: network as `${string}:${string}`, asset }] });
  const http = new x402HTTPClient(client);
  const forOffer = async (url: string) => {
    const response = await fetch(url);
    if (response.status !== 402) throw new Error(`expected a 402 offer from ${url}, got ${response.status}`);
    const offer = http.getPaymentRequiredResponse(
      (name) => response.headers.get(name),
      await response.json(),
    );
    return async () => {
      const payload = await client.createPaymentPayload(offer);
      const header = http.encodePaymentSignatureHeader(payload)["PAYMENT-SIGNATURE"];
      if (header === undefined) throw new Error("the client produced no PAYMENT-SIGNATURE");
      return header;
    };
  };
  return {
    forOffer,
    async sign(url, count) {
      const next = await forOffer(url);
      const headers: string[] = [];
      for (let i = 0; i < count; i++) headers.push(await next());
      return headers;
    },
  };
}
