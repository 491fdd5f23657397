import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { buildRouteTable } from "../pricing/buildRouteTable.js";

/** The official start-up check of `@x402/extensions/bazaar`: it warns on the console for each bad declaration. */
export interface OfficialBazaarValidator {
  validateBazaarRouteExtensions(routes: Record<string, { extensions: Record<string, unknown> }>): void;
}

/** What the official validator said of the config's Bazaar declarations, or that it is not installed. */
export type OfficialBazaarCheck =
  | { available: false; declarations: number; reason: string }
  | { available: true; declarations: number; warnings: string[] };

/**
 * Every route's Bazaar declaration (`extensions.bazaar` or `discovery`) through the official validator of
 * `@x402/extensions` (`validateBazaarRouteExtensions`: the Bazaar spec's rules, then its info against its schema). The package is heavy and
 * optional: it is loaded only here, and when it is absent the check says so instead of failing.
 */
export async function officialBazaarCheck(
  config: GatewayConfig,
  load: () => Promise<OfficialBazaarValidator> = () =>
    import("@x402/extensions/bazaar") as Promise<OfficialBazaarValidator>,
): Promise<OfficialBazaarCheck> {
  const declared = buildRouteTable(config).routes.filter((route) => route.bazaar !== undefined);
  if (declared.length === 0) return { available: true, declarations: 0, warnings: [] };
  let validator: OfficialBazaarValidator;
  try {
    validator = await load();
  } catch (error) {
    return {
      available: false,
      declarations: declared.length,
      reason: (error as Error).message.split("\n")[0] ?? "",
    };
  }
  // The official check, as its middleware runs it at start-up (a synthetic method from the route key); it
  // only warns on the console, so its warnings are collected for the report.
  const routes = Object.fromEntries(
    declared.map((route) => {
      const { routeTemplate: _template, ...bazaar } = route.bazaar?.declaration ?? {};
      return [route.key, { extensions: { bazaar } }];
    }),
  );
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) =>
    void warnings.push(
      args
        .map(String)
        .join(" ")
        .replace(/^x402: /, ""),
    );
  try {
    validator.validateBazaarRouteExtensions(routes);
  } finally {
    console.warn = warn;
  }
  return { available: true, declarations: declared.length, warnings };
}
