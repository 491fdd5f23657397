import { x402Client, x402HTTPClient } from "@x402/core/client";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { guardSignedFetch } from "../payer/guardSignedFetch.js";
import { STARKNET_RECOGNITION, type RecognitionExtension } from "../recognition/recognitionExtension.js";

export interface SignInOptions {
  /** Where the lines go (default console.log). */
  print?: (line: string) => void;
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Send the sign-in over plain HTTP to a host that is not loopback, on a test chain only (default false). */
  allowInsecureHttp?: boolean;
}

/**
 * `npm run pay -- --sign-in <url>`: answers the 402 offer's `sign-in-with-x` challenge with the official
 * client hook (`createSIWxClientHook`, the key in `privateKey`) and never pays: the client has no
 * scheme, and no PAYMENT-SIGNATURE is ever sent; the sign-in goes over https:// or to loopback only
 * (`guardSignedFetch`). Resolves the exit status: 0 when the sign-in was
 * served (a recognized payer), 1 otherwise (not recorded yet, no challenge, or refused).
 */
export async function signInWithoutPaying(
  url: string,
  privateKey: Hex,
  options: SignInOptions = {},
): Promise<number> {
  const print = options.print ?? ((line: string) => console.log(line));
  const fetchImpl = guardSignedFetch(options.fetch ?? globalThis.fetch, {
    allowInsecureHttp: options.allowInsecureHttp,
    setting: "--allow-insecure-http",
  });
  const account = privateKeyToAccount(privateKey);
  const http = new x402HTTPClient(new x402Client()).onPaymentRequired(createSIWxClientHook(account));
  print(`payer: ${account.address} (signing in, never paying)`);
  print(`GET ${url}`);
  const offer = await fetchImpl(url);
  if (offer.status !== 402) {
    print(`status: ${offer.status} ${offer.statusText} (no offer to sign in to)`);
    print(`body: ${await offer.text()}`);
    return offer.ok ? 0 : 1;
  }
  const text = await offer.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const paymentRequired = http.getPaymentRequiredResponse((name) => offer.headers.get(name), body);
  const named = (
    paymentRequired.extensions?.[STARKNET_RECOGNITION] as Partial<RecognitionExtension> | undefined
  )?.info;
  if (typeof named?.rpcUrl === "string") {
    print(
      `offer: ${STARKNET_RECOGNITION}: est_ouverte on ${named.contractAddress ?? "?"} at ${named.rpcUrl}`,
    );
  }
  const headers = await http.handlePaymentRequired(paymentRequired, offer.url || url);
  if (headers === null) {
    print("the offer carries no sign-in-with-x challenge: this route does not recognize payers");
    return 1;
  }
  print(`sign-in: ${Object.keys(headers).join(", ")} sent`);
  const answer = await fetchImpl(url, { headers });
  print(`status: ${answer.status} ${answer.statusText}`);
  print("PAYMENT-SIGNATURE sent: no");
  const answerText = await answer.text();
  if (answer.status === 402) {
    print(
      "not recognized (yet): est_ouverte still answers 0x0 for this payer (pay once and wait a few seconds), or it was revoked. Nothing was paid.",
    );
    return 1;
  }
  print(`body: ${prettyJson(answerText)}`);
  return answer.ok ? 0 : 1;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
