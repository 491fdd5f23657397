import { BaseError } from "../common/BaseError.js";

/** A payer tool refused to send a `PAYMENT-SIGNATURE` or a sign-in over plain HTTP: nothing was sent. */
export class InsecureTransportError extends BaseError {
  declare readonly code: "insecure_transport";

  constructor(url: string, message: string) {
    super("insecure_transport", message, { details: { url }, docsPath: "docs/hardening.md" });
  }
}
