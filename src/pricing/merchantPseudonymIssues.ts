import type { SettingsIssue } from "./payToIssues.js";
import type { RouteConfig } from "./routeSettings.js";

/**
 * Shapes a wallet address takes: an EVM address (0x + 40 hex, or the 40 hex alone) and a Starknet felt
 * address (0x + up to 64 hex, or 63–64 hex alone). A pseudonym of that shape names a wallet, whoever's.
 */
const ADDRESS_SHAPES = [/^(0x)?[0-9a-f]{40}$/i, /^0x[0-9a-f]{1,64}$/i, /^[0-9a-f]{63,64}$/i];

/**
 * Why `pseudonym` is not a pseudonym, or `undefined`: it is an address, or it is (or spells out) one of
 * the configured payees, case-insensitively. The seed: `merchant_pseudonym` is never the raw merchant wallet.
 */
export function merchantPseudonymProblem(pseudonym: string, payees: readonly string[]): string | undefined {
  const value = pseudonym.trim();
  const lower = value.toLowerCase();
  const payee = payees.find((payTo) => payTo.trim() !== "" && lower.includes(payTo.trim().toLowerCase()));
  if (payee !== undefined) {
    return `the merchant pseudonym names the payee wallet ${JSON.stringify(payee)}: the wire never carries the raw merchant wallet, so choose a name (e.g. "merchant:acme")`;
  }
  if (ADDRESS_SHAPES.some((shape) => shape.test(value))) {
    return `the merchant pseudonym ${JSON.stringify(pseudonym)} is a wallet address (EVM or Starknet): the wire never carries a raw wallet, so choose a name (e.g. "merchant:acme")`;
  }
  return undefined;
}

/**
 * Every `merchantPseudonym` (the shared `cbor` one and each route's) that is an address or a payee's
 * wallet. Shared by `x402()` options and the gateway config, so both refuse it at the same key path.
 */
export function merchantPseudonymIssues(settings: {
  payTo?: string | undefined;
  routes: Record<string, RouteConfig>;
  cbor?: { merchantPseudonym?: string | undefined } | undefined;
}): SettingsIssue[] {
  const payees = settings.payTo === undefined ? [] : [settings.payTo];
  for (const route of Object.values(settings.routes)) {
    // A payee computed per request is not known here (the ADDRESS_SHAPES check still holds).
    if (typeof route.payTo === "string") payees.push(route.payTo);
    for (const option of route.accepts ?? []) if (typeof option.payTo === "string") payees.push(option.payTo);
  }
  const named: Array<{ pseudonym: string; path: PropertyKey[] }> = [];
  if (settings.cbor?.merchantPseudonym !== undefined)
    named.push({ pseudonym: settings.cbor.merchantPseudonym, path: ["cbor", "merchantPseudonym"] });
  for (const [key, route] of Object.entries(settings.routes)) {
    const pseudonym = route.cbor?.merchantPseudonym;
    if (pseudonym !== undefined)
      named.push({ pseudonym, path: ["routes", key, "cbor", "merchantPseudonym"] });
  }
  const issues: SettingsIssue[] = [];
  for (const { pseudonym, path } of named) {
    const message = merchantPseudonymProblem(pseudonym, payees);
    if (message !== undefined) issues.push({ path, message });
  }
  return issues;
}
