import type { z } from "zod/v4";
import { humanityGateIssues } from "../pricing/humanityGateIssues.js";
import { payToIssues } from "../pricing/payToIssues.js";
import type { PaywallSettings } from "./options.js";

/**
 * The rules that span keys (payees against their networks, humans-only routes): one refinement that
 * `x402()` options and the gateway config both run, so both refuse the same settings at the same paths.
 */
export function paywallSettingsIssues(
  settings: Pick<PaywallSettings, "payTo" | "network" | "routes" | "recognition">,
  ctx: z.RefinementCtx,
): void {
  for (const { path, message } of [...payToIssues(settings), ...humanityGateIssues(settings)]) {
    ctx.addIssue({ code: "custom", path, message });
  }
}
