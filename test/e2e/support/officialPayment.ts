import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { RunningSolanaEngine } from "../../../src/dev/startSolanaEngine.js";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** The official client (exact on eip155:*), allowed to spend the local TestUSDC. */
export function officialClient(privateKey: Hex, token: Hex): x402Client {
  return new x402Client()
    .register("eip155:*", new ExactEvmScheme(privateKeyToAccount(privateKey)))
    .setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: token }] });
}

/** The official client paying `exact` on Solana (solana:*) from the LOCAL engine's payer, reading the engine. */
export function officialSolanaClient(engine: RunningSolanaEngine): x402Client {
  return new x402Client().register(
    "solana:*",
    new ExactSvmScheme(engine.accounts.payer.signer, { rpcUrl: engine.rpcUrl }),
  );
}

/** Reads a route's 402 offer and has the official client sign a payment for it, without sending it. */
export async function signOfficialPayment(
  client: x402Client,
  url: string,
  init?: RequestInit,
): Promise<{ header: string; payload: PaymentPayload; offer: PaymentRequired }> {
  const response = await fetch(url, init);
  if (response.status !== 402) throw new Error(`expected a 402 offer from ${url}, got ${response.status}`);
  const http = new x402HTTPClient(client);
  const offer = http.getPaymentRequiredResponse((name) => response.headers.get(name), await response.json());
  const payload = await client.createPaymentPayload(offer);
  const headers = http.encodePaymentSignatureHeader(payload);
  const header = headers["PAYMENT-SIGNATURE"];
  if (header === undefined) throw new Error(`no PAYMENT-SIGNATURE in ${Object.keys(headers).join(", ")}`);
  return { header, payload, offer };
}

/** A `fetch` that records the `PAYMENT-SIGNATURE` of every request it sends. */
export function recordingFetch(sent: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const signature = request.headers.get("payment-signature");
    if (signature !== null) sent.push(signature);
    return fetch(request);
  };
}
