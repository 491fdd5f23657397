import type { Logger } from "../../common/Logger.js";
import type { ExtensionResponses } from "../../protocol/decodeExtensionResponses.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";

/**
 * What a facilitator's `EXTENSION-RESPONSES` says (a Bazaar listing accepted or rejected, and why) goes to
 * the log and, per extension and status, to the observer's `extensionResponse` (the gateway's metrics).
 */
export function reportExtensionResponses(
  logger: Logger,
  observer: PaywallObserver | undefined,
): (endpoint: "verify" | "settle", responses: ExtensionResponses) => void {
  return (endpoint, responses) => {
    logger.info({ endpoint, extensionResponses: responses }, "facilitator extension responses");
    for (const [extension, response] of Object.entries(responses))
      observer?.extensionResponse?.(endpoint, extension, response.status ?? "");
  };
}
