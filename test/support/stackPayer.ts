import { privateKeyToAccount } from "viem/accounts";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import type { LocalStack } from "../../src/dev/startLocalStack.js";
import { siwxSignIn } from "./siwxSignIn.js";

/**
 * The local stack's funded payer against a gateway at `baseUrl()`: `pay(path)` pays through the official
 * client (the stack's test token allowed), `signIn(path)` signs in with its key and answers the status
 * (200 admitted, 402 not).
 */
export function stackPayer(stack: () => LocalStack, baseUrl: () => string) {
  const key = () => stack().accounts.payer.privateKey;
  return {
    pay: (path: string) =>
      createPayingFetch({
        privateKey: key(),
        allowedAssets: [{ network: "eip155:31337", asset: stack().token.address }],
      }).fetch(`${baseUrl()}${path}`),
    async signIn(path: string): Promise<number> {
      const url = `${baseUrl()}${path}`;
      const offer = await fetch(url);
      const { header } = await siwxSignIn(
        offer.headers.get("payment-required")!,
        privateKeyToAccount(key()),
        url,
      );
      const answer = await fetch(url, { headers: { "sign-in-with-x": header } });
      await answer.arrayBuffer();
      return answer.status;
    },
  };
}
