import { BaseError } from "../common/BaseError.js";

/**
 * A signer backend could not reach what it verifies against (the layer-2 node, an EVM RPC): fail closed.
 * Its `details` are for the logs (they may name the node); the paywall answers `503 signer_unavailable`.
 */
export class SignerUnavailableError extends BaseError {
  constructor(message: string, details: Record<string, unknown> = {}, options: { cause?: unknown } = {}) {
    super("signer_unavailable", message, { details, cause: options.cause });
  }
}
