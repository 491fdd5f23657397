import { z } from "zod/v4";
import { isHttpsOrLoopbackUrl } from "../../common/isHttpsOrLoopbackUrl.js";

/** The browser paywall page's settings (`paywall`); on by default. */
export const paywallPageSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true).meta({
    description:
      "Answer a browser (an `Accept` that prefers `text/html` to JSON and CBOR) on a priced `GET` with a page that pays with the browser's wallet (still `402` with `PAYMENT-REQUIRED`). API clients keep the JSON or CBOR 402. Default true.",
  }),
  appName: z.string().optional().meta({
    description: "Your service's name, shown above the page's heading (as the official `appName`).",
  }),
  solanaRpcUrls: z
    .record(
      z.string().regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/, "a Solana CAIP-2 network id"),
      z
        .string()
        .refine(
          isPageRpcUrl,
          "an https:// URL (http:// to loopback only), without credentials, its host a plain name or IP",
        ),
    )
    .optional()
    .meta({
      description:
        "Solana JSON-RPC URLs the page reads from to pay a Solana option with a Wallet Standard wallet (the mint, the payer's balance, a recent blockhash), by CAIP-2 network. Browsers call it directly, so give a public endpoint (never one with a secret key in it); its origin is added to the page's `connect-src`. Default: the public cluster endpoints the official `@x402/svm` client uses (`https://api.mainnet-beta.solana.com`, `https://api.devnet.solana.com`, `https://api.testnet.solana.com`).",
    }),
  contentSecurityPolicy: z.string().optional().meta({
    description:
      "`Content-Security-Policy` sent with a route's `customPaywallHtml` (the built-in page always sends its own strict one). Without it a custom page keeps the headers already set (the gateway's is `default-src 'none'`, which blocks its scripts).",
  }),
});
export type PaywallPageSettings = z.output<typeof paywallPageSettingsSchema>;

/** The official `PaywallProvider`: renders the page itself (code only, `x402()` and `x402Node()`). */
export interface PaywallProvider {
  generateHtml(
    paymentRequired: {
      x402Version: 2;
      error: string;
      resource: { url: string; description?: string; mimeType?: string };
      accepts: unknown[];
      extensions?: Record<string, unknown> | undefined;
    },
    config?: { appName?: string | undefined; currentUrl?: string | undefined },
  ): string;
}

/**
 * A Solana RPC URL a browser may be given: https (http to loopback), no user or password (the page shows it to
 * everyone), and an origin that is a plain host name or IP and port, since it is written into the page's CSP.
 */
export function isPageRpcUrl(value: string): boolean {
  if (!isHttpsOrLoopbackUrl(value)) return false;
  const url = new URL(value);
  return (
    url.username === "" &&
    url.password === "" &&
    /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d+)?$/.test(url.origin)
  );
}
