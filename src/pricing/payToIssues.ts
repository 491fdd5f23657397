import type { RouteConfig } from "./routeSettings.js";
import { payToProblem } from "./payToProblem.js";
import type { DynamicPayTo } from "./routeFunctions.js";
import { NO_DEFAULT } from "./resolvePaymentOptions.js";

/** A problem at a key path of the settings, as a zod refinement reports it. */
export interface SettingsIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * Every payee that cannot be paid on the network it is offered on: the top-level `payTo`, a route's, an
 * option's, or one inherited onto a route whose own `network` it does not fit. Shared by `x402()`
 * options and the gateway config, so both refuse the same payees with the same key paths.
 */
/** Stands for a payee computed per request: given, checked when it is computed. */
const DYNAMIC = "";

export function payToIssues(settings: {
  payTo?: string | undefined;
  network?: string | undefined;
  routes: Record<string, RouteConfig>;
}): SettingsIssue[] {
  const issues: SettingsIssue[] = [];
  const seen = new Set<string>();
  const check = (
    payTo: string | undefined,
    network: string | undefined,
    path: PropertyKey[],
    inherited: boolean,
  ) => {
    if (payTo === undefined || payTo === DYNAMIC || network === undefined) return;
    const problem = payToProblem(payTo, network);
    const where = JSON.stringify(path);
    if (problem === undefined || seen.has(where)) return;
    seen.add(where);
    issues.push({
      path,
      message: inherited
        ? `the payTo it inherits (${JSON.stringify(payTo)}) cannot be paid on ${network}: ${problem}; give it its own payTo`
        : problem,
    });
  };
  check(settings.payTo, settings.network, ["payTo"], false);
  for (const [key, config] of Object.entries(settings.routes)) {
    // A payee computed per request is checked when it is computed; here it only counts as given.
    const route = { ...config, payTo: staticPayee(config.payTo) };
    const routeNetwork = route.network ?? settings.network;
    // Where the route's payTo was checked: its own network, or the top level's for an inherited one.
    const payTo = route.payTo ?? settings.payTo;
    const checkedOn = route.payTo !== undefined ? routeNetwork : settings.network;
    if (route.payTo !== undefined) check(route.payTo, routeNetwork, ["routes", key, "payTo"], false);
    const options: Array<{ payTo?: string | undefined; network?: string | undefined; path: PropertyKey[] }> =
      route.price !== undefined ? [{ path: ["routes", key] }] : [];
    route.accepts?.forEach((option, index) =>
      options.push({ ...option, payTo: staticPayee(option.payTo), path: ["routes", key, "accepts", index] }),
    );
    for (const option of options) {
      const network = option.network ?? routeNetwork;
      const missing = (["network", "payTo"] as const).filter(
        (field) => (option[field] ?? route[field] ?? settings[field]) === undefined,
      );
      for (const field of missing) issues.push({ path: option.path, message: NO_DEFAULT(field) });
      if (missing.length > 0) continue;
      if (option.payTo !== undefined) {
        check(option.payTo, network, [...option.path, "payTo"], false);
        continue;
      }
      // An inherited payTo already refused where it was written is not reported again.
      if (
        payTo === undefined ||
        network === undefined ||
        checkedOn === undefined ||
        network === checkedOn ||
        payToProblem(payTo, checkedOn) !== undefined
      )
        continue;
      const path = option.network !== undefined ? [...option.path, "network"] : ["routes", key, "network"];
      check(payTo, network, path, true);
    }
  }
  return issues;
}

/** A payee as written, with a function replaced by {@link DYNAMIC}. */
function staticPayee(payTo: string | DynamicPayTo | undefined): string | undefined {
  return typeof payTo === "function" ? DYNAMIC : payTo;
}
