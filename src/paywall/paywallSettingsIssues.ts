import type { z } from "zod/v4";
import { humanityGateIssues } from "../pricing/humanityGateIssues.js";
import { merchantPseudonymIssues } from "../pricing/merchantPseudonymIssues.js";
import { payToIssues } from "../pricing/payToIssues.js";
import type { PaywallSettings } from "./options.js";

/**
 * The rules that span keys (payees against their networks, humans-only routes, pseudonyms that are wallets): one refinement that
 * `x402()` options and the gateway config both run, so both refuse the same settings at the same paths.
 */
export function paywallSettingsIssues(
  settings: Pick<PaywallSettings, "payTo" | "network" | "routes" | "recognition" | "cbor">,
  ctx: z.RefinementCtx,
): void {
  for (const { path, message } of [
    ...payToIssues(settings),
    ...humanityGateIssues(settings),
    ...merchantPseudonymIssues(settings),
  ]) {
    ctx.addIssue({ code: "custom", path, message });
  }
}
