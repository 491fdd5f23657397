import { BaseError } from "../../common/BaseError.js";

/** A wrong option: thrown by `x402()` at start-up, naming every offending key. */
export class X402OptionsError extends BaseError {
  constructor(readonly problems: string[]) {
    super("invalid_options", `x402(): invalid options\n  ${problems.join("\n  ")}`, {
      details: { problems },
      docsPath: "docs/middleware.md",
    });
  }
}
