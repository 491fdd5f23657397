import type { RecognitionSettings } from "../recognition/recognitionSettings.js";
import type { SettingsIssue } from "./payToIssues.js";
import type { RouteConfig } from "./routeSettings.js";

/**
 * Humans-only routes (`cbor.acceptsHumanityGate`) offered a way in that carries no humanity claim: a
 * JSON `price`/`accepts` (an EIP-3009 payment has no place for one), or recognition (a recognized payer
 * is let in without paying at all). Either would skip the gate, so the settings are refused.
 */
export function humanityGateIssues(settings: {
  routes: Record<string, RouteConfig>;
  recognition?: RecognitionSettings | undefined;
}): SettingsIssue[] {
  const issues: SettingsIssue[] = [];
  for (const [key, route] of Object.entries(settings.routes)) {
    if (route.cbor?.acceptsHumanityGate !== true) continue;
    const json = [
      ...(route.price !== undefined ? ["price"] : []),
      ...((route.accepts?.length ?? 0) > 0 ? ["accepts"] : []),
    ];
    if (json.length > 0) {
      issues.push({
        path: ["routes", key, "cbor", "acceptsHumanityGate"],
        message: `a humans-only route takes only payments that carry a humanity claim, and a JSON payment (routes["${key}"].${json.join("/")}) cannot carry one: remove ${json.join(" and ")} or the gate`,
      });
    }
    if (typeof route.recognition === "object") {
      issues.push({
        path: ["routes", key, "recognition"],
        message:
          "a humans-only route (cbor.acceptsHumanityGate) cannot let recognized payers in without a humanity claim: remove recognition or the gate",
      });
    } else if (route.recognition === undefined && settings.recognition !== undefined) {
      issues.push({
        path: ["routes", key, "recognition"],
        message:
          "a humans-only route (cbor.acceptsHumanityGate) inherits the top-level recognition, which lets recognized payers in without a humanity claim: set recognition: false on the route",
      });
    }
  }
  return issues;
}
