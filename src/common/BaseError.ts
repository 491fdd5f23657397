export interface BaseErrorOptions {
  /** What caused it, for whoever reads the logs or the error (never sent to a client as is). */
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
  /** Where the docs explain it, relative to the repository (e.g. `docs/errors.md`). */
  docsPath?: string | undefined;
}

/**
 * The one base of this project's errors (model: viem's BaseError): a stable `code`, a one-line
 * `message` a user can act on, `details`, an optional `docsPath`, and the `cause` chain with
 * {@link BaseError.walk}. Errors that reach the wire add their HTTP `status` (GatewayError, StakingError).
 */
export class BaseError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly docsPath: string | undefined;

  constructor(code: string, message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
    this.docsPath = options.docsPath;
  }

  /**
   * Walks the `cause` chain from this error: returns the first error `match` accepts, or, without
   * `match`, the innermost cause (this error when it has none).
   */
  walk(match?: (error: unknown) => boolean): unknown {
    let current: unknown = this as unknown;
    for (let depth = 0; depth < 32; depth++) {
      if (match?.(current)) return current;
      const next = current instanceof Error ? current.cause : undefined;
      if (next === undefined) return match ? undefined : current;
      current = next;
    }
    return match ? undefined : current;
  }
}
