import { BaseError } from "../common/BaseError.js";
import type { ErrorCatalogueEntry } from "../common/ErrorCatalogueEntry.js";

/**
 * The staking backend's error catalogue: each code (UPPER_SNAKE) with its HTTP status
 * and when it is answered. The error table of `docs/staking-backend.md` is generated from it
 * (`npm run docs`), and so are the OpenAPI document's error responses.
 */
export const STAKING_ERRORS = {
  INVALID_REQUEST: {
    status: 400,
    when: "a field missing, of the wrong type, malformed (address, amount), out of range, or unknown; `details.issues[]` names each `field`",
  },
  INVALID_JSON: { status: 400, when: "the body is not JSON" },
  PAYLOAD_TOO_LARGE: {
    status: 400,
    when: "the body is over `maxBodyBytes` (64 KiB); 400, as for any bad input",
  },
  AMOUNT_IS_ZERO: { status: 400, when: "stake/add of 0" },
  AMOUNT_TOO_HIGH: { status: 400, when: "intent above staked + pending (`details.maximum`)" },
  CALLER_CANNOT_ADD_TO_POOL: {
    status: 403,
    when: "add-to-pool for a `poolMember` by a user who is neither that member nor its reward address",
  },
  UNKNOWN_TOKEN: { status: 404, when: "the validator has no pool for `tokenAddress`" },
  POOL_MEMBER_NOT_FOUND: { status: 404, when: "the user (or `poolMember`) is not a member of that pool" },
  NOT_FOUND: { status: 404, when: "no such route" },
  POOL_MEMBER_EXISTS: { status: 409, when: "stake by an existing member (use add-to-pool)" },
  VALIDATOR_EXITING: { status: 409, when: "the validator is leaving (stake, add, restake)" },
  INSUFFICIENT_BALANCE: {
    status: 409,
    when: "the wallet holds less than the amount (`details.balance`, `required`)",
  },
  MISSING_UNSTAKE_INTENT: { status: 409, when: "action without an intent" },
  INTENT_WINDOW_NOT_FINISHED: {
    status: 409,
    when: "action before `unpool_time` (`details.secondsRemaining`)",
  },
  NOTHING_TO_RESTAKE: { status: 409, when: "restake with no rewards" },
  INTERNAL_ERROR: { status: 500, when: "a bug (logged)" },
  CHAIN_ERROR: {
    status: 502,
    when: "a contract view reverted or answered something unreadable (Starknet)",
  },
  CHAIN_UNAVAILABLE: {
    status: 503,
    when: "the Starknet node is unreachable, timed out, or answered an HTTP error",
  },
} as const satisfies Record<string, ErrorCatalogueEntry>;

export type StakingErrorCode = keyof typeof STAKING_ERRORS;

/**
 * Every error the staking backend answers with. Each has a stable wire `code` from {@link STAKING_ERRORS},
 * the HTTP `status` written there, a one-line `message` a user can act on, and `details`.
 * `stakingErrorBody` is the only place that turns one into the response body.
 */
export class StakingError extends BaseError {
  declare readonly code: StakingErrorCode;
  readonly status: number;

  constructor(options: {
    code: StakingErrorCode;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.code, options.message, {
      details: options.details,
      cause: options.cause,
      docsPath: "docs/staking-backend.md",
    });
    this.status = STAKING_ERRORS[options.code].status;
  }
}

/** A field of the request is missing, has the wrong type or an invalid value; or an unknown field. */
export class InvalidRequestError extends StakingError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super({ code: "INVALID_REQUEST", message, details });
  }
}

export class InvalidJsonError extends StakingError {
  constructor() {
    super({ code: "INVALID_JSON", message: "The request body is not valid JSON" });
  }
}

/** docs/staking-backend.md, "Errors": a body over the size limit is bad input, so 400 (not 413). */
export class PayloadTooLargeError extends StakingError {
  constructor(limitBytes: number) {
    super({
      code: "PAYLOAD_TOO_LARGE",
      message: `The request body is larger than ${limitBytes} bytes`,
      details: { limitBytes },
    });
  }
}

export class RouteNotFoundError extends StakingError {
  constructor(method: string, path: string) {
    super({
      code: "NOT_FOUND",
      message: `No route ${method} ${path}`,
      details: { method, path },
    });
  }
}

export class UnknownTokenError extends StakingError {
  constructor(tokenAddress: string) {
    super({
      code: "UNKNOWN_TOKEN",
      message: `The validator has no delegation pool for token ${tokenAddress}`,
      details: { tokenAddress },
    });
  }
}

export class PoolMemberExistsError extends StakingError {
  constructor(poolMember: string, tokenSymbol: string) {
    super({
      code: "POOL_MEMBER_EXISTS",
      message: `${poolMember} is already a member of the ${tokenSymbol} pool: use add-to-pool`,
      details: { poolMember, token: tokenSymbol },
    });
  }
}

export class PoolMemberNotFoundError extends StakingError {
  constructor(poolMember: string, tokenSymbol: string) {
    super({
      code: "POOL_MEMBER_NOT_FOUND",
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
      message: "Only the pool member or its reward address can add to its stake",
      details: { caller, poolMember },
    });
  }
}

export class AmountIsZeroError extends StakingError {
  constructor() {
    super({
      code: "AMOUNT_IS_ZERO",
      message: "amount must be greater than zero",
      details: { field: "amount" },
    });
  }
}

export class AmountTooHighError extends StakingError {
  constructor(amount: bigint, maximum: bigint) {
    super({
      code: "AMOUNT_TOO_HIGH",
      message: `amount ${amount} is more than the ${maximum} staked and pending exit`,
      details: { field: "amount", amount: amount.toString(), maximum: maximum.toString() },
    });
  }
}

export class ValidatorExitingError extends StakingError {
  constructor(stakerAddress: string) {
    super({
      code: "VALIDATOR_EXITING",
      message: "The validator is leaving the staking protocol and accepts no new delegation",
      details: { stakerAddress },
    });
  }
}

export class InsufficientBalanceError extends StakingError {
  constructor(address: string, tokenSymbol: string, balance: bigint, required: bigint) {
    super({
      code: "INSUFFICIENT_BALANCE",
      message: `Wallet ${address} holds ${balance} ${tokenSymbol} units, ${required} needed`,
      details: { address, token: tokenSymbol, balance: balance.toString(), required: required.toString() },
    });
  }
}

export class MissingUnstakeIntentError extends StakingError {
  constructor(poolMember: string) {
    super({
      code: "MISSING_UNSTAKE_INTENT",
      message: "There is no pending exit intent: call unstake/intent first",
      details: { poolMember },
    });
  }
}

export class IntentWindowNotFinishedError extends StakingError {
  constructor(unpoolTime: number, secondsRemaining: number) {
    super({
      code: "INTENT_WINDOW_NOT_FINISHED",
      message: `The exit window ends in ${secondsRemaining} s`,
      details: { secondsRemaining, unpoolTime: new Date(unpoolTime * 1000).toISOString() },
    });
  }
}

export class NothingToRestakeError extends StakingError {
  constructor(poolMember: string) {
    super({
      code: "NOTHING_TO_RESTAKE",
      message: "There are no unclaimed rewards to restake",
      details: { poolMember },
    });
  }
}

/** The Starknet node did not answer (transport failure, timeout, 5xx). */
export class ChainUnavailableError extends StakingError {
  constructor(message: string, cause?: unknown) {
    super({ code: "CHAIN_UNAVAILABLE", message, cause });
  }
}

/** The Starknet node answered something this backend cannot read (a revert, a malformed result). */
export class ChainResponseError extends StakingError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super({ code: "CHAIN_ERROR", message, details, cause });
  }
}

export class InternalError extends StakingError {
  constructor(cause?: unknown) {
    super({ code: "INTERNAL_ERROR", message: "Internal error", cause });
  }
}

/** The one error body of the staking backend. */
export function stakingErrorBody(error: StakingError): {
  success: false;
  error: { code: string; message: string; details: Record<string, unknown> };
} {
  return { success: false, error: { code: error.code, message: error.message, details: error.details } };
}
