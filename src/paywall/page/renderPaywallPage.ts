import { sha256 as sha256Of } from "@noble/hashes/sha2";
import { base64OfBytes, utf8Bytes } from "../../common/bytes.js";
import type { PaymentRequirements } from "../../protocol/schemas.js";
import { escapeHtml, jsonForScript } from "./escapeHtml.js";
import { PAYWALL_PAGE_SCRIPT, PAYWALL_PAGE_STYLE } from "./paywallPageScript.js";
import type { Offer } from "../responses/respond.js";
import { describePass } from "../passes/describePass.js";

const sha256 = (text: string): string => `'sha256-${base64OfBytes(sha256Of(utf8Bytes(text)))}'`;
const SCRIPT_HASH = sha256(PAYWALL_PAGE_SCRIPT);
const STYLE_HASH = sha256(PAYWALL_PAGE_STYLE);

/**
 * The page's `Content-Security-Policy`: nothing loads but its own inline script and style (by hash), the
 * one `fetch` back to its own origin, and a `blob:` link to a downloaded resource; no frames, forms or base.
 */
export const PAYWALL_PAGE_CSP = paywallPageCsp([]);

/** {@link PAYWALL_PAGE_CSP}, its `connect-src` also allowing `origins` (the Solana JSON-RPC the page reads). */
export function paywallPageCsp(origins: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    "img-src blob:",
    ["connect-src 'self'", ...origins].join(" "),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** What the page says about the option it pays: worked out by the server, where the asset table is. */
export interface PaywallPageFacts {
  /** The offer's option a browser wallet can pay (`exact` on `eip155:*`, with an EIP-712 domain), if any. */
  index: number;
  /** `"0.01 USDC"`, or the amount in smallest units when the asset is unknown. */
  price: string;
  /** The network by name (`"Base"`). */
  network: string;
  decimals?: number | undefined;
  symbol?: string | undefined;
  appName?: string | undefined;
  /** The option shown (price, network, payee): the EVM one, else the Solana one, else the first. */
  shown?: number | undefined;
  /** The offer's Solana option a Wallet Standard wallet can pay, and where the page reads the chain. */
  solana?: SolanaPageFacts | undefined;
}

/** What the page's script needs to pay a Solana `exact` option. */
export interface SolanaPageFacts {
  index: number;
  /** The Wallet Standard chain (`solana:devnet`). */
  chain: string;
  /** The JSON-RPC URL the page reads the mint, the payer's balance and a blockhash from. */
  rpcUrl: string;
  network: string;
  decimals?: number | undefined;
  symbol?: string | undefined;
}

/** The whole page for a 402 `offer`: every value from config or request escaped, the offer as a JSON block. */
export function renderPaywallPage(offer: Offer, facts: PaywallPageFacts): string {
  const option: PaymentRequirements | undefined = offer.accepts[facts.shown ?? Math.max(facts.index, 0)];
  const evm = facts.index >= 0 ? offer.accepts[facts.index] : undefined;
  const { description, url } = offer.resource;
  const what = description ? description : "this resource";
  const data = {
    paymentRequired: {
      x402Version: 2,
      resource: offer.resource,
      accepts: offer.accepts,
      extensions: offer.extensions,
    },
    index: facts.index,
    chainId: evm ? Number(evm.network.split(":")[1]) : 0,
    network: facts.network,
    decimals: facts.decimals,
    symbol: facts.symbol,
    solana: facts.solana,
  };
  const rows = [
    ["For", escapeHtml(what)],
    ["Price", escapeHtml(facts.price)],
    ["Network", escapeHtml(facts.network)],
    ["Pay to", `<code>${escapeHtml(option?.payTo ?? "")}</code>`],
    ["Resource", `<code>${escapeHtml(url)}</code>`],
    ...passRow(offer.extensions),
  ]
    .map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`)
    .join("");
  const app = facts.appName ? `<p class="app">${escapeHtml(facts.appName)}</p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Payment required: ${escapeHtml(what)}</title>
<style>${PAYWALL_PAGE_STYLE}</style>
</head>
<body>
<main>
${app}<h1>Payment required</h1>
<p class="what">${escapeHtml(what)} costs ${escapeHtml(facts.price)} on ${escapeHtml(facts.network)}.</p>
<dl>${rows}</dl>
<noscript><p id="x402-noscript">This page takes an x402 payment of ${escapeHtml(facts.price)} on ${escapeHtml(facts.network)} for ${escapeHtml(what)}. Paying here needs JavaScript and a browser wallet; an x402 client can pay without them: the offer is in this answer's <code>PAYMENT-REQUIRED</code> header.</p></noscript>
<div id="x402-app" hidden>
<button id="x402-pay" type="button">Connect wallet and pay ${escapeHtml(facts.price)}</button>
<button id="x402-sign-in" type="button" hidden>Already paid? Sign in with your wallet</button>
<p id="x402-status" role="status" aria-live="polite"></p>
<section id="x402-result" hidden><h2>Your resource</h2><pre id="x402-body"></pre></section>
</div>
</main>
<script type="application/json" id="x402-offer">${jsonForScript(data)}</script>
<script>${PAYWALL_PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/** The page's line for a pass the offer sells: one payment buys that much. */
function passRow(extensions: Record<string, unknown> | undefined): string[][] {
  const pass = describePass(extensions);
  return pass === undefined ? [] : [["One payment buys", escapeHtml(pass)]];
}
