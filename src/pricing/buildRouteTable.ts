import { AssetTable, type KnownAsset } from "./knownAssets.js";
import type { PricingDefaults } from "./resolvePaymentOptions.js";
import type { CborPricingDefaults } from "./resolveCborOffer.js";
import type { RouteConfig } from "./routeSettings.js";
import { RouteTable } from "./RouteTable.js";

/** What a route table is compiled from: the `x402()` options and the gateway config both have it. */
export type RouteTableSettings = Omit<PricingDefaults, "assets"> & {
  routes: Record<string, RouteConfig>;
  assets?: readonly KnownAsset[] | undefined;
  cbor?: CborPricingDefaults | undefined;
  caseSensitivePaths?: boolean | undefined;
};

/** The route table of these settings (throws `RouteConfigError` naming the route). */
export function buildRouteTable(settings: RouteTableSettings): RouteTable {
  return new RouteTable(settings.routes, {
    payTo: settings.payTo,
    network: settings.network,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    assets: new AssetTable(settings.assets ?? []),
    cbor: settings.cbor,
    caseSensitivePaths: settings.caseSensitivePaths,
  });
}
