import type { AssetTable } from "../../pricing/knownAssets.js";
import { formatAmount } from "../../pricing/formatAmount.js";
import { networkName } from "../../pricing/networkName.js";
import { PAYMENT_REQUIRED } from "../../protocol/headers.js";
import { prefersHtml } from "../../protocol/prefersHtml.js";
import type { PaymentRequirements } from "../../protocol/schemas.js";
import type { Exchange } from "../flow/Exchange.js";
import type { PaywallPageSettings, PaywallProvider } from "./paywallPageSettings.js";
import {
  paywallPageCsp,
  renderPaywallPage,
  type PaywallPageFacts,
  type SolanaPageFacts,
} from "./renderPaywallPage.js";
import { SOLANA_WALLET_CHAINS } from "./solanaWalletChains.js";
import { utf8ByteLength } from "../../common/bytes.js";
import { addVary, type Offer } from "../responses/respond.js";

export interface PaywallPageDeps {
  settings: PaywallPageSettings;
  /** Decimals and symbols of the assets offers name, for the price in whole units. */
  assets: AssetTable;
  /** Renders every page instead of the built-in one (a route's `customPaywallHtml` still wins). */
  provider?: PaywallProvider | undefined;
}

/**
 * The 402 a browser gets: a page that pays with the browser's wallet, beside the same `PAYMENT-REQUIRED`
 * header every client gets. Only for an unpaid `GET`/`HEAD` whose `Accept` prefers HTML to JSON and CBOR.
 */
export class PaywallPage {
  constructor(private readonly deps: PaywallPageDeps) {}

  answers(exchange: Exchange): boolean {
    const { req, route } = exchange;
    return (
      this.deps.settings.enabled &&
      (req.method === "GET" || req.method === "HEAD") &&
      route.requirements.length > 0 &&
      prefersHtml(req.headers.accept)
    );
  }

  /** Answer 402 with the page; `header` is the offer's `PAYMENT-REQUIRED` value. */
  send(exchange: Exchange, offer: Offer, header: string): void {
    const { res, route } = exchange;
    const { settings, provider } = this.deps;
    let html: string;
    let policy: string | undefined;
    const custom = route.config.customPaywallHtml;
    if (custom !== undefined || provider !== undefined) {
      html =
        custom ??
        (provider as PaywallProvider).generateHtml(
          { x402Version: 2, error: "payment_required", ...offer },
          { appName: settings.appName, currentUrl: offer.resource.url },
        );
      policy = settings.contentSecurityPolicy;
    } else {
      const facts = this.facts(offer.accepts);
      html = renderPaywallPage(offer, facts);
      policy = paywallPageCsp(facts.solana === undefined ? [] : [new URL(facts.solana.rpcUrl).origin]);
      res.setHeader("Referrer-Policy", "no-referrer");
    }
    if (policy !== undefined) res.setHeader("Content-Security-Policy", policy);
    res.setHeader(PAYMENT_REQUIRED, header);
    res.setHeader("Cache-Control", "no-store");
    addVary(res, "Accept");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.statusCode = 402;
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.setHeader("Content-Length", utf8ByteLength(html));
    res.end(html);
  }

  /**
   * The options a browser wallet can pay (EIP-3009 `exact` on an EVM chain; `exact` on a Solana network with
   * the facilitator's fee payer, for a Wallet Standard wallet) and how to show them.
   */
  private facts(accepts: readonly PaymentRequirements[]): PaywallPageFacts {
    const index = accepts.findIndex(
      (option) =>
        option.scheme === "exact" &&
        /^eip155:\d+$/.test(option.network) &&
        typeof option.extra?.name === "string" &&
        typeof option.extra.version === "string",
    );
    const solana = this.solanaFacts(accepts);
    const shown = index >= 0 ? index : (solana?.index ?? 0);
    const option = accepts[shown] as PaymentRequirements;
    const { network, price, decimals, symbol } = this.describe(option);
    return { index, shown, network, price, decimals, symbol, appName: this.deps.settings.appName, solana };
  }

  private solanaFacts(accepts: readonly PaymentRequirements[]): SolanaPageFacts | undefined {
    const index = accepts.findIndex(
      (option) =>
        option.scheme === "exact" &&
        SOLANA_WALLET_CHAINS[option.network] !== undefined &&
        typeof option.extra?.feePayer === "string",
    );
    if (index < 0) return undefined;
    const option = accepts[index] as PaymentRequirements;
    const known = SOLANA_WALLET_CHAINS[option.network] as (typeof SOLANA_WALLET_CHAINS)[string];
    const rpcUrl = this.deps.settings.solanaRpcUrls?.[option.network] ?? known.publicRpcUrl;
    const { network, decimals, symbol } = this.describe(option);
    return { index, chain: known.chain, rpcUrl, network, decimals, symbol };
  }

  /** An option's network by name and its price in whole units (in smallest units when the asset is unknown). */
  private describe(option: PaymentRequirements): {
    network: string;
    price: string;
    decimals?: number | undefined;
    symbol?: string | undefined;
  } {
    const network = SOLANA_WALLET_CHAINS[option.network]?.name ?? networkName(option.network);
    const asset = this.deps.assets.find(option.network, option.asset);
    if (asset === undefined) {
      return { network, price: `${option.amount} smallest units of token ${option.asset}` };
    }
    const name = option.extra?.name;
    const symbol = asset.symbol ?? (typeof name === "string" ? name : "tokens");
    const price = `${formatAmount(option.amount, asset.decimals)} ${symbol}`;
    return { network, price, decimals: asset.decimals, symbol };
  }
}
