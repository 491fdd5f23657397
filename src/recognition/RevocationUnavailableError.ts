import { GatewayError } from "../protocol/errors.js";

/**
 * A revocation that could not be shared with the other instances (Redis unreachable): the payer is
 * denied in this process only. Answered `503 revocation_unavailable`; retry once Redis is back.
 */
export class RevocationUnavailableError extends GatewayError {
  constructor(message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super("revocation_unavailable", message, { ...options, retryAfterSeconds: 5 });
  }
}
