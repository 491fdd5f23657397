import { GatewayError } from "../errors.js";
import { BaseError } from "../../common/BaseError.js";

/** What is wrong with a CBOR input, as a stable word a client can act on. */
export type CborProblem =
  | "empty"
  | "too_large"
  | "too_deep"
  | "too_many_items"
  | "truncated"
  | "trailing_bytes"
  | "indefinite_length"
  | "non_shortest"
  | "reserved"
  | "float"
  | "simple_value"
  | "tag"
  | "invalid_utf8"
  | "key_type"
  | "duplicate_key"
  | "unsorted_keys"
  // No longer produced (the reader refuses each non-canonical form by its own rule); kept for clients.
  | "non_canonical"
  | "out_of_range"
  | "missing_key"
  | "unknown_key"
  | "wrong_type"
  | "wrong_value";

/** A CBOR input this project's profile refuses; `at` is the byte offset or the field path. */
export class CborError extends BaseError {
  constructor(
    readonly problem: CborProblem,
    message: string,
    readonly at?: string,
  ) {
    super(`cbor_${problem}`, at === undefined ? message : `${at}: ${message}`, {
      details: { problem, ...(at === undefined ? {} : { at }) },
      docsPath: "docs/cbor.md",
    });
  }

  /** The catalogue's answer: `400 invalid_payment`, naming the header and what is wrong. */
  toInvalidPayment(header: string): GatewayError {
    return new GatewayError("invalid_payment", `${header} is not valid x402+cbor: ${this.message}`, {
      details: { header, problem: this.problem, ...(this.at === undefined ? {} : { at: this.at }) },
      cause: this,
    });
  }
}
