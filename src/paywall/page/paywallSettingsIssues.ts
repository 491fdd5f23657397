import type { z } from "zod/v4";
import { humanityGateIssues } from "../../pricing/humanityGateIssues.js";
import { merchantPseudonymIssues } from "../../pricing/merchantPseudonymIssues.js";
import { payToIssues, type SettingsIssue } from "../../pricing/payToIssues.js";
import { recognitionsOf } from "../../recognition/recognitionsOf.js";
import type { RecognitionSettings } from "../../recognition/recognitionSettings.js";
import { isHttpsOrLoopbackUrl } from "../../common/isHttpsOrLoopbackUrl.js";
import { OUTBOUND_URL_MESSAGE } from "../../common/outboundUrl.js";
import { revocationHoldProblem } from "../../recognition/revocationSettings.js";
import type { RouteConfig } from "../../pricing/routeSettings.js";
import type { PaywallSettings } from "./paywallSettingsSchema.js";

/** What a recognition without `publicUrl`/`allowedHosts` is told, wherever it is configured. */
export const RECOGNITION_HOST_MESSAGE =
  "recognition needs publicUrl (or allowedHosts): a sign-in proof is bound to the gateway's own host, never to a Host header a client chose";

/**
 * The rules that span keys, written once: payees against their networks, humans-only routes, pseudonyms that
 * are wallets, recognition
 * bound to a known host, and a revocation hold that outlasts every recognition cache. `x402()` options and
 * the gateway config both run this one refinement, so both refuse the same settings at the same paths
 * with the same words. `signInGate` is the code-only gate `x402()` may be given instead of settings.
 */
export function paywallSettingsIssues(
  settings: Pick<
    PaywallSettings,
    "payTo" | "network" | "recognition" | "publicUrl" | "allowedHosts" | "revocation" | "cbor" | "passes"
  > & { signInGate?: unknown; routes: Record<string, RouteConfig> },
  ctx: z.RefinementCtx,
): void {
  const recognitions = recognitionsOf(settings);
  const issues: SettingsIssue[] = [
    ...payToIssues(settings),
    ...humanityGateIssues(settings),
    ...merchantPseudonymIssues(settings),
  ];
  const recognizes = recognitions.length > 0 || settings.signInGate !== undefined;
  if (recognizes && settings.publicUrl === undefined && (settings.allowedHosts ?? []).length === 0) {
    issues.push({ path: ["publicUrl"], message: RECOGNITION_HOST_MESSAGE });
  }
  issues.push(...recognitionUrlIssues(settings));
  // A pass is signed by the gateway: a route that sells one needs the key to sign it with.
  if (settings.passes === undefined) {
    for (const [key, route] of Object.entries(settings.routes))
      if (route.pass !== undefined)
        issues.push({
          path: ["routes", key, "pass"],
          message: "a route that sells a pass needs top-level `passes` (`secret` or `ed25519PrivateKey`)",
        });
  }
  const hold = revocationHoldProblem(settings.revocation?.holdMs, recognitions);
  if (hold !== undefined) issues.push({ path: ["revocation", "holdMs"], message: hold });
  for (const { path, message } of issues) ctx.addIssue({ code: "custom", path, message });
}

/** Recognition nodes are called out to (or named to clients) like any outbound URL: https, or http on loopback. */
function recognitionUrlIssues(
  settings: Pick<PaywallSettings, "recognition"> & { routes: Record<string, RouteConfig> },
): SettingsIssue[] {
  const at: Array<[PropertyKey[], RecognitionSettings]> = [];
  if (settings.recognition) at.push([["recognition"], settings.recognition]);
  for (const [key, route] of Object.entries(settings.routes)) {
    if (route.recognition) at.push([["routes", key, "recognition"], route.recognition]);
  }
  return at.flatMap(([path, recognition]) =>
    (["rpcUrl", "announceRpcUrl"] as const)
      .filter((key) => recognition[key] !== undefined && !isHttpsOrLoopbackUrl(recognition[key]))
      .map((key) => ({ path: [...path, key], message: OUTBOUND_URL_MESSAGE })),
  );
}
