import type { PricedRoute } from "../../pricing/RouteTable.js";

/**
 * The priced-routes table `npm start` prints: key, price, and when the payment settles (before the
 * upstream runs, for irreversible work; or after its 2xx).
 */
export function formatPricedRoutes(
  routes: readonly PricedRoute[],
  units: (amount: string) => string,
  symbol: string,
): string[] {
  const width = Math.max(...routes.map((route) => route.key.length));
  const priceOf = (route: PricedRoute) => {
    const first = route.requirements[0];
    const schemes = [...new Set(route.requirements.map((option) => option.scheme))].join(" or ");
    const json = first ? `${units(first.amount)} ${symbol} (${first.amount} units, ${schemes})` : "";
    const gate = route.cbor?.acceptsHumanityGate ? " (humans only)" : "";
    const cbor = route.cbor
      ? `${json ? " + " : ""}x402+cbor ${route.cbor.amount} ${route.cbor.currency} units${gate}${json ? "" : " only"}`
      : "";
    return `${json}${cbor}`;
  };
  const priceWidth = Math.max(...routes.map((route) => priceOf(route).length));
  return [...routes]
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((route) => {
      const when = route.settle === "before" ? "settles first, then runs" : "runs, settles on 2xx";
      return `  ${route.key.padEnd(width)}  ${priceOf(route).padEnd(priceWidth)}  ${when}`;
    });
}
