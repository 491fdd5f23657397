import { BaseError } from "../common/BaseError.js";

/**
 * What went wrong asking the chain; `transport` and `malformed` are the node's fault, the rest the
 * contract's but `revocations_unavailable`: the shared revocations (Redis) could not be read.
 */
export type RecognitionErrorKind =
  | "contract_not_found"
  | "entrypoint_not_found"
  | "block_not_found"
  | "contract_error"
  | "transport"
  | "malformed"
  | "revocations_unavailable";

/**
 * A failed `est_ouverte` call. Internal: it never reaches the wire, because a failed check only
 * means "not recognized" (fail closed); it is logged and counted.
 */
export class RecognitionError extends BaseError {
  declare readonly code: RecognitionErrorKind;

  constructor(
    kind: RecognitionErrorKind,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(kind, message, { ...options, docsPath: "docs/recognition.md" });
  }

  /** What went wrong (the same as `code`). */
  get kind(): RecognitionErrorKind {
    return this.code;
  }
}
