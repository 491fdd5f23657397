import type { Logger } from "../../common/Logger.js";
import { keepsPasses, type PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";
import { ed25519PassKey, hmacPassKey } from "../passes/PassKey.js";
import { Passes } from "../passes/Passes.js";
import type { PassesSettings } from "../passes/passesSettings.js";
import { X402OptionsError } from "./X402OptionsError.js";

/** The passes routes sell, when some route does; refused at start-up when the ledger cannot count them. */
export function buildPasses(
  settings: PassesSettings | undefined,
  routes: readonly PricedRoute[],
  ledger: PaymentLedger,
  deps: { now: () => number; logger: Logger; observer: PaywallObserver },
): Passes | undefined {
  if (settings === undefined || !routes.some((route) => route.config.pass !== undefined)) return undefined;
  if (!keepsPasses(ledger))
    throw new X402OptionsError([
      "ledger: routes sell passes (`pass`), but this ledger does not keep them (openPass/usePass/passOf/endPasses)",
    ]);
  const key =
    settings.secret !== undefined
      ? hmacPassKey(settings.secret)
      : ed25519PassKey(settings.ed25519PrivateKey as string);
  return new Passes(
    { ...deps, ledger, key, cookieName: settings.cookieName, maxSeconds: settings.maxSeconds },
    routes,
  );
}
