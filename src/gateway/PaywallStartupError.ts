import { BaseError } from "../common/BaseError.js";

/** A start-up check of the paywall failed (a route's OpenAPI body schema could not be loaded): no start. */
export class PaywallStartupError extends BaseError {
  constructor(cause: Error) {
    super("paywall_startup_failed", `the paywall cannot start: ${cause.message}`, {
      cause,
      docsPath: "docs/gateway.md",
    });
  }
}
