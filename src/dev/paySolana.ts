import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { isHttpsOrLoopbackUrl } from "../common/isHttpsOrLoopbackUrl.js";
import { readSolanaKeypairFile, SolanaKeypairError } from "../common/readSolanaKeypairFile.js";

export interface PaySolanaOptions {
  /** A Solana CLI keypair file (owner-only): a JSON array of the 64 secret-key bytes. */
  keypairFile: string;
  /** The JSON-RPC endpoint the client reads the mint and a blockhash from (the offer's network's). */
  rpcUrl?: string | undefined;
  /** Offers above this amount, in the asset's smallest unit, are refused. */
  maxAmount: bigint;
  method: string;
  body?: string | undefined;
}

/**
 * Pays `url` on Solana with the official client (`@x402/fetch` + `@x402/svm` exact), signing the transfer with
 * the keypair file's key; prints the offer, the receipt and the transaction's signature. Over https:// or to
 * loopback only.
 */
export async function paySolana(url: string, options: PaySolanaOptions): Promise<number> {
  if (!isHttpsOrLoopbackUrl(url)) {
    console.error("a Solana payment goes over https:// or to loopback only");
    return 2;
  }
  let signer;
  try {
    signer = await readSolanaKeypairFile(options.keypairFile);
  } catch (error) {
    if (!(error instanceof SolanaKeypairError)) throw error;
    console.error(error.message);
    return 2;
  }
  const client = new x402Client().register(
    "solana:*",
    new ExactSvmScheme(signer, options.rpcUrl === undefined ? undefined : { rpcUrl: options.rpcUrl }),
  );
  client.registerPolicy((_version, requirements) =>
    requirements.filter((option) => {
      console.log(
        `offer: ${option.scheme} ${option.amount} of ${option.asset} on ${option.network} to ${option.payTo}`,
      );
      const affordable = option.network.startsWith("solana:") && BigInt(option.amount) <= options.maxAmount;
      if (!affordable && option.network.startsWith("solana:"))
        console.error(`refusing ${option.scheme} ${option.amount}: above --max-amount ${options.maxAmount}`);
      return affordable;
    }),
  );
  client.registerPolicy((_version, requirements) => {
    const chosen = requirements[0];
    if (chosen !== undefined) console.log(`paying: ${chosen.scheme} ${chosen.amount} on ${chosen.network}`);
    return requirements;
  });
  console.log(`payer: ${signer.address}`);
  console.log(`${options.method} ${url}`);
  const response = await wrapFetchWithPayment(fetch, client)(url, {
    method: options.method,
    redirect: "manual",
    ...(options.body === undefined
      ? {}
      : { body: options.body, headers: { "content-type": "application/json" } }),
  });
  console.log(`status: ${response.status} ${response.statusText}`);
  const header = response.headers.get("payment-response");
  if (header !== null) {
    const receipt = decodePaymentResponseHeader(header);
    console.log(`PAYMENT-RESPONSE: ${JSON.stringify(receipt, null, 2)}`);
    console.log(`transaction: ${receipt.transaction || "(none)"}`);
  } else console.log("PAYMENT-RESPONSE: (none)");
  console.log(`body: ${await response.text()}`);
  return response.ok ? 0 : 1;
}
