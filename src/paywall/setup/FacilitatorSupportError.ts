import { BaseError } from "../../common/BaseError.js";
import type { SupportReport } from "./assemblePaymentFlow.js";

/** With `facilitatorSupport: require`, a facilitator whose `/supported` lacks a route's option (or cannot be read) stops the start. */
export class FacilitatorSupportError extends BaseError {
  constructor(report: SupportReport) {
    const why =
      report.error !== undefined
        ? `its /supported could not be read: ${report.error}`
        : `it does not list ${report.unsupported.join("; ")}`;
    super(
      "facilitator_unsupported",
      `the facilitator cannot settle every priced route (facilitatorSupport: require): ${why}`,
      { details: { unsupported: report.unsupported }, docsPath: "docs/middleware-options.md" },
    );
  }
}
