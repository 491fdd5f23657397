import type { PaymentRequirements } from "../protocol/schemas.js";
import type { PaymentOption, Price, RouteConfig } from "./routeSettings.js";
import type { AssetTable } from "./knownAssets.js";
import { PriceError, parseMoney } from "./parseMoney.js";

/** Route-independent defaults a payment option falls back on. */
export interface PricingDefaults {
  payTo?: string | undefined;
  network?: string | undefined;
  maxTimeoutSeconds: number;
  assets: AssetTable;
}

function resolvePrice(
  price: Price,
  network: string,
  assets: AssetTable,
): Pick<PaymentRequirements, "amount" | "asset" | "extra"> {
  if (typeof price === "string" || typeof price === "number") {
    const asset = assets.defaultFor(network);
    if (!asset) {
      throw new PriceError(
        `no default asset is known for ${network}: give { amount, asset, extra } or register it in \`assets\``,
      );
    }
    const extra = asset.name !== undefined ? { name: asset.name, version: asset.version ?? "1" } : undefined;
    return { amount: parseMoney(String(price), asset.decimals).toString(), asset: asset.address, extra };
  }
  if (BigInt(price.amount) === 0n)
    throw new PriceError("the amount is zero: leave a free route out of the table");
  const known = assets.find(network, price.asset);
  const extra =
    price.extra ??
    (known?.name !== undefined ? { name: known.name, version: known.version ?? "1" } : undefined);
  return { amount: price.amount, asset: price.asset, extra };
}

/** The message for an option that names no `network` (or `payTo`) while neither the route nor the top level does. */
export const NO_DEFAULT = (field: "payTo" | "network"): string =>
  `no ${field}: give it here, on the route, or as the top-level \`${field}\``;

/**
 * The requirements a route offers, in order: its own `price` first, then each of `accepts`.
 * Computed once at start-up; throws {@link PriceError} for a price that cannot be paid.
 */
export function resolvePaymentOptions(route: RouteConfig, defaults: PricingDefaults): PaymentRequirements[] {
  const options: PaymentOption[] = [];
  if (route.price !== undefined) options.push({ price: route.price });
  options.push(...(route.accepts ?? []));
  return options.map((option, index) => {
    const network = option.network ?? route.network ?? defaults.network;
    const payTo = option.payTo ?? route.payTo ?? defaults.payTo;
    try {
      if (network === undefined) throw new PriceError(NO_DEFAULT("network"));
      if (payTo === undefined) throw new PriceError(NO_DEFAULT("payTo"));
      const resolved = resolvePrice(option.price, network, defaults.assets);
      const extra =
        option.extra === undefined ? resolved.extra : { ...(resolved.extra ?? {}), ...option.extra };
      const requirements: PaymentRequirements = {
        scheme: option.scheme ?? route.scheme ?? "exact",
        network,
        amount: resolved.amount,
        asset: resolved.asset,
        payTo,
        maxTimeoutSeconds: option.maxTimeoutSeconds ?? route.maxTimeoutSeconds ?? defaults.maxTimeoutSeconds,
      };
      if (extra !== undefined) requirements.extra = extra;
      return requirements;
    } catch (error) {
      const where =
        route.price !== undefined && index === 0 ? "price" : `accepts[${index - (route.price ? 1 : 0)}]`;
      throw new PriceError(`${where}: ${(error as Error).message}`);
    }
  });
}
