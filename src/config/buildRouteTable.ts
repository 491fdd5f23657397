import { AssetTable } from "../pricing/knownAssets.js";
import { RouteTable } from "../pricing/RouteTable.js";
import type { GatewayConfig } from "./gatewayConfigSchema.js";

/** The route table `x402()` will compile from this config (throws `RouteConfigError` as it would). */
export function buildRouteTable(
  config: Pick<GatewayConfig, "routes" | "payTo" | "network" | "maxTimeoutSeconds" | "assets" | "cbor">,
): RouteTable {
  return new RouteTable(config.routes, {
    payTo: config.payTo,
    network: config.network,
    maxTimeoutSeconds: config.maxTimeoutSeconds,
    assets: new AssetTable(config.assets ?? []),
    cbor: config.cbor,
  });
}
