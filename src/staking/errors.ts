import { BaseError } from "../common/BaseError.js";

/**
 * Every error the staking backend answers with. Each has a stable wire `code` (UPPER_SNAKE, from
 * docs/staking-backend.md), an HTTP `status`, a one-line `message` a user can act on, and `details`.
 * `stakingErrorBody` is the only place that turns one into the response body.
 */
export class StakingError extends BaseError {
  readonly status: number;

  constructor(options: {
    code: string;
    status: number;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.code, options.message, {
      details: options.details,
      cause: options.cause,
      docsPath: "docs/staking-backend.md",
    });
    this.status = options.status;
  }
}

/** A field of the request is missing, has the wrong type or an invalid value; or an unknown field. */
export class InvalidRequestError extends StakingError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super({ code: "INVALID_REQUEST", status: 400, message, details });
  }
}

export class InvalidJsonError extends StakingError {
  constructor() {
    super({ code: "INVALID_JSON", status: 400, message: "The request body is not valid JSON" });
  }
}

/** docs/staking-backend.md, "Errors": a body over the size limit is bad input, so 400 (not 413). */
export class PayloadTooLargeError extends StakingError {
  constructor(limitBytes: number) {
    super({
      code: "PAYLOAD_TOO_LARGE",
      status: 400,
      message: `The request body is larger than ${limitBytes} bytes`,
      details: { limitBytes },
    });
  }
}

export class RouteNotFoundError extends StakingError {
  constructor(method: string, path: string) {
    super({
      code: "NOT_FOUND",
      status: 404,
      message: `No route ${method} ${path}`,
      details: { method, path },
    });
  }
}

export class UnknownTokenError extends StakingError {
  constructor(tokenAddress: string) {
    super({
      code: "UNKNOWN_TOKEN",
      status: 404,
      message: `The validator has no delegation pool for token ${tokenAddress}`,
      details: { tokenAddress },
    });
  }
}

export class PoolMemberExistsError extends StakingError {
  constructor(poolMember: string, tokenSymbol: string) {
    super({
      code: "POOL_MEMBER_EXISTS",
      status: 409,
      message: `${poolMember} is already a member of the ${tokenSymbol} pool: use add-to-pool`,
      details: { poolMember, token: tokenSymbol },
    });
  }
}

export class PoolMemberNotFoundError extends StakingError {
  constructor(poolMember: string, tokenSymbol: string) {
    super({
      code: "POOL_MEMBER_NOT_FOUND",
      status: 404,
      message: `${poolMember} is not a member of the ${tokenSymbol} pool`,
      details: { poolMember, token: tokenSymbol },
    });
  }
}

/** The pool contract lets only the member or its reward address add to a member's stake. */
export class CallerCannotAddToPoolError extends StakingError {
  constructor(caller: string, poolMember: string) {
    super({
      code: "CALLER_CANNOT_ADD_TO_POOL",
      status: 403,
      message: "Only the pool member or its reward address can add to its stake",
      details: { caller, poolMember },
    });
  }
}

export class AmountIsZeroError extends StakingError {
  constructor() {
    super({
      code: "AMOUNT_IS_ZERO",
      status: 400,
      message: "amount must be greater than zero",
      details: { field: "amount" },
    });
  }
}

export class AmountTooHighError extends StakingError {
  constructor(amount: bigint, maximum: bigint) {
    super({
      code: "AMOUNT_TOO_HIGH",
      status: 400,
      message: `amount ${amount} is more than the ${maximum} staked and pending exit`,
      details: { field: "amount", amount: amount.toString(), maximum: maximum.toString() },
    });
  }
}

export class ValidatorExitingError extends StakingError {
  constructor(stakerAddress: string) {
    super({
      code: "VALIDATOR_EXITING",
      status: 409,
      message: "The validator is leaving the staking protocol and accepts no new delegation",
      details: { stakerAddress },
    });
  }
}

export class InsufficientBalanceError extends StakingError {
  constructor(address: string, tokenSymbol: string, balance: bigint, required: bigint) {
    super({
      code: "INSUFFICIENT_BALANCE",
      status: 409,
      message: `Wallet ${address} holds ${balance} ${tokenSymbol} units, ${required} needed`,
      details: { address, token: tokenSymbol, balance: balance.toString(), required: required.toString() },
    });
  }
}

export class MissingUnstakeIntentError extends StakingError {
  constructor(poolMember: string) {
    super({
      code: "MISSING_UNSTAKE_INTENT",
      status: 409,
      message: "There is no pending exit intent: call unstake/intent first",
      details: { poolMember },
    });
  }
}

export class IntentWindowNotFinishedError extends StakingError {
  constructor(unpoolTime: number, secondsRemaining: number) {
    super({
      code: "INTENT_WINDOW_NOT_FINISHED",
      status: 409,
      message: `The exit window ends in ${secondsRemaining} s`,
      details: { secondsRemaining, unpoolTime: new Date(unpoolTime * 1000).toISOString() },
    });
  }
}

export class NothingToRestakeError extends StakingError {
  constructor(poolMember: string) {
    super({
      code: "NOTHING_TO_RESTAKE",
      status: 409,
      message: "There are no unclaimed rewards to restake",
      details: { poolMember },
    });
  }
}

/** The Starknet node did not answer (transport failure, timeout, 5xx). */
export class ChainUnavailableError extends StakingError {
  constructor(message: string, cause?: unknown) {
    super({ code: "CHAIN_UNAVAILABLE", status: 503, message, cause });
  }
}

/** The Starknet node answered something this backend cannot read (a revert, a malformed result). */
export class ChainResponseError extends StakingError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super({ code: "CHAIN_ERROR", status: 502, message, details, cause });
  }
}

export class InternalError extends StakingError {
  constructor(cause?: unknown) {
    super({ code: "INTERNAL_ERROR", status: 500, message: "Internal error", cause });
  }
}

/** The one error body of the staking backend. */
export function stakingErrorBody(error: StakingError): {
  success: false;
  error: { code: string; message: string; details: Record<string, unknown> };
} {
  return { success: false, error: { code: error.code, message: error.message, details: error.details } };
}
