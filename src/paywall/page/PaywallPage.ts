import type { AssetTable } from "../../pricing/knownAssets.js";
import { formatAmount } from "../../pricing/formatAmount.js";
import { networkName } from "../../pricing/networkName.js";
import { PAYMENT_REQUIRED } from "../../protocol/headers.js";
import { prefersHtml } from "../../protocol/prefersHtml.js";
import type { PaymentRequirements } from "../../protocol/schemas.js";
import type { Exchange } from "../flow/Exchange.js";
import type { PaywallPageSettings, PaywallProvider } from "./paywallPageSettings.js";
import { PAYWALL_PAGE_CSP, renderPaywallPage, type PaywallPageFacts } from "./renderPaywallPage.js";
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
      html = renderPaywallPage(offer, this.facts(offer.accepts));
      policy = PAYWALL_PAGE_CSP;
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

  /** The option a browser wallet can pay (EIP-3009 `exact` on an EVM chain) and how to show it. */
  private facts(accepts: readonly PaymentRequirements[]): PaywallPageFacts {
    const index = accepts.findIndex(
      (option) =>
        option.scheme === "exact" &&
        /^eip155:\d+$/.test(option.network) &&
        typeof option.extra?.name === "string" &&
        typeof option.extra.version === "string",
    );
    const option = accepts[Math.max(index, 0)] as PaymentRequirements;
    const network = networkName(option.network);
    const appName = this.deps.settings.appName;
    const asset = this.deps.assets.find(option.network, option.asset);
    if (asset === undefined) {
      return { index, network, appName, price: `${option.amount} smallest units of token ${option.asset}` };
    }
    const name = option.extra?.name;
    const symbol = asset.symbol ?? (typeof name === "string" ? name : "tokens");
    const price = `${formatAmount(option.amount, asset.decimals)} ${symbol}`;
    return { index, network, appName, price, decimals: asset.decimals, symbol };
  }
}
