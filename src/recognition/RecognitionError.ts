/** What went wrong asking the chain; `transport` and `malformed` are the node's fault, the rest the contract's. */
export type RecognitionErrorKind =
  | "contract_not_found"
  | "entrypoint_not_found"
  | "block_not_found"
  | "contract_error"
  | "transport"
  | "malformed";

/**
 * A failed `est_ouverte` call. Internal: it never reaches the wire, because a failed check only
 * means "not recognized" (fail closed); it is logged and counted.
 */
export class RecognitionError extends Error {
  readonly kind: RecognitionErrorKind;
  readonly details: Record<string, unknown>;

  constructor(
    kind: RecognitionErrorKind,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RecognitionError";
    this.kind = kind;
    this.details = options.details ?? {};
  }
}
