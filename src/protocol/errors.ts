import { BaseError } from "../common/BaseError.js";

/**
 * The gateway's error catalogue: every error that leaves the gateway has one of these codes,
 * the HTTP status written beside it, and one flat body shape `{ error, message, details }`.
 */
export const ERROR_STATUS = {
  invalid_payment: 400,
  invalid_sign_in: 400,
  invalid_path: 400,
  invalid_method_override: 400,
  invalid_header: 400,
  body_not_allowed: 400,
  invalid_revocation: 400,
  sign_in_rejected: 401,
  admin_unauthorized: 401,
  payment_required: 402,
  payment_mismatch: 402,
  payment_already_used: 402,
  verification_failed: 402,
  settlement_failed: 402,
  delegation_invalid: 402,
  delegation_expired: 402,
  delegation_out_of_scope: 402,
  delegation_cap_exceeded: 402,
  humanity_claim_required: 402,
  humanity_claim_invalid: 402,
  humanity_issuer_untrusted: 402,
  humanity_claim_mismatch: 402,
  humanity_claim_expired: 402,
  tls_required: 403,
  payment_in_progress: 409,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  header_too_large: 431,
  not_found: 404,
  method_not_allowed: 405,
  internal_error: 500,
  facilitator_error: 502,
  upstream_unavailable: 502,
  response_too_large: 502,
  facilitator_unavailable: 503,
  ledger_unavailable: 503,
  settlement_unknown: 503,
  revocation_unavailable: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface GatewayErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** Response headers the answer must carry (`Allow` on a 405). */
  headers?: Record<string, string>;
}

/** Base of every error the gateway answers with. `code` is the stable wire code; `message` is one actionable line. */
export class GatewayError extends BaseError {
  declare readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(code, message, { ...options, docsPath: "docs/errors.md" });
    this.status = ERROR_STATUS[code];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }

  /** The flat error body every non-402 error is sent as. */
  toBody(): { error: ErrorCode; message: string; details: Record<string, unknown> } {
    return { error: this.code, message: this.message, details: this.details };
  }
}
