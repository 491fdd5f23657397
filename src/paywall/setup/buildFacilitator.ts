import { HttpFacilitator } from "../../facilitator/HttpFacilitator.js";
import { isFacilitator, type Facilitator } from "../../facilitator/Facilitator.js";
import { fromFacilitatorClient, isFacilitatorClient } from "../../facilitator/fromFacilitatorClient.js";
import { RoutedFacilitator, servesOption } from "../../facilitator/RoutedFacilitator.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { ResolvedX402Options } from "./options.js";
import { X402OptionsError } from "./X402OptionsError.js";
import { reportExtensionResponses } from "./reportExtensionResponses.js";
import { silentLogger } from "../../common/Logger.js";

/** Whether the facilitator supports each route's payment options, read from its `/supported`. */
export interface SupportReport {
  ok: boolean;
  /** `"GET /x: exact on eip155:1"` for every option the facilitator does not list. */
  unsupported: string[];
  error?: string;
}

/** The facilitator `x402()` calls, from its options: an instance as given, one facilitator's settings, or a routed list. */
export function buildFacilitator(settings: ResolvedX402Options, routes: readonly PricedRoute[]): Facilitator {
  if (isFacilitator(settings.facilitator)) return settings.facilitator;
  if (isFacilitatorClient(settings.facilitator)) return fromFacilitatorClient(settings.facilitator);
  const common = {
    fetch: settings.fetch,
    onExtensionResponses: reportExtensionResponses(settings.logger ?? silentLogger, settings.observer),
  };
  if (!Array.isArray(settings.facilitator))
    return new HttpFacilitator({ ...settings.facilitator, ...common });
  const list = settings.facilitator.map(({ networks, schemes, ...http }) => ({
    facilitator: new HttpFacilitator({ ...http, ...common }),
    networks,
    schemes,
    name: http.url,
  }));
  // Every payment option must have a facilitator to go to: refused at start-up, never at payment time.
  const orphans = routes.flatMap((route) =>
    route.requirements
      .filter((option) => !list.some((entry) => servesOption(entry, option)))
      .map((option) => `${route.key}: ${option.scheme} on ${option.network}`),
  );
  if (orphans.length > 0)
    throw new X402OptionsError(
      orphans.map(
        (orphan) => `facilitator: no facilitator in the list serves ${orphan} (check networks and schemes)`,
      ),
    );
  return new RoutedFacilitator(list);
}

export async function readSupport(
  facilitator: Facilitator,
  routes: readonly PricedRoute[],
): Promise<SupportReport> {
  let kinds: Array<{ scheme: string; network: string; x402Version: number }>;
  try {
    kinds = (await facilitator.supported()).kinds;
  } catch (error) {
    return { ok: false, unsupported: [], error: (error as Error).message };
  }
  const unsupported: string[] = [];
  for (const route of routes) {
    for (const option of route.requirements) {
      const listed = kinds.some(
        (kind) => kind.x402Version === 2 && kind.scheme === option.scheme && kind.network === option.network,
      );
      if (!listed) unsupported.push(`${route.key}: ${option.scheme} on ${option.network}`);
    }
  }
  return { ok: unsupported.length === 0, unsupported };
}
