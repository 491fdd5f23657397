import { z } from "zod/v4";

/** The browser paywall page's settings (`paywall`); on by default. */
export const paywallPageSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true).meta({
    description:
      "Answer a browser (an `Accept` that prefers `text/html` to JSON and CBOR) on a priced `GET` with a page that pays with the browser's wallet (still `402` with `PAYMENT-REQUIRED`). API clients keep the JSON or CBOR 402. Default true.",
  }),
  appName: z.string().optional().meta({
    description: "Your service's name, shown above the page's heading (as the official `appName`).",
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
