import type { z } from "zod/v4";
import type { StakingErrorCode } from "./errors.js";
import {
  addToPoolBodySchema,
  memberBodySchema,
  stakeBodySchema,
  tokenQuerySchema,
  unstakeIntentBodySchema,
  userAddressParamsSchema,
} from "./requestSchemas.js";

/** One route of the staking backend: the single source for Express, the descriptor and OpenAPI. */
export interface StakingRoute {
  /** Key in the descriptor's `endpoints`. */
  key: string;
  method: "GET" | "POST";
  /** Express path (`:param` style). */
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Conflict and not-found codes this route may answer (documented in OpenAPI). */
  errors: StakingErrorCode[];
}

const MEMBER_ERRORS: StakingErrorCode[] = ["UNKNOWN_TOKEN", "POOL_MEMBER_NOT_FOUND"];

/**
 * The 11 routes of docs/staking-backend.md (the descriptor itself is served at `/` and `/api`). Order matters
 * to Express: the validator metrics route comes before the user metrics route that would swallow it.
 */
export const stakingRoutes: readonly StakingRoute[] = [
  { key: "health", method: "GET", path: "/health", summary: "Liveness of the backend", errors: [] },
  { key: "ping", method: "GET", path: "/ping", summary: "Answers pong", errors: [] },
  {
    key: "stake",
    method: "POST",
    path: "/api/stake",
    summary: "Enter the validator's delegation pool (approve + enter_delegation_pool)",
    body: stakeBodySchema,
    errors: [
      "AMOUNT_IS_ZERO",
      "UNKNOWN_TOKEN",
      "POOL_MEMBER_EXISTS",
      "VALIDATOR_EXITING",
      "INSUFFICIENT_BALANCE",
    ],
  },
  {
    key: "addToPool",
    method: "POST",
    path: "/api/add-to-pool",
    summary: "Add to a member's pooled amount (approve + add_to_delegation_pool)",
    body: addToPoolBodySchema,
    errors: [
      "AMOUNT_IS_ZERO",
      ...MEMBER_ERRORS,
      "CALLER_CANNOT_ADD_TO_POOL",
      "VALIDATOR_EXITING",
      "INSUFFICIENT_BALANCE",
    ],
  },
  {
    key: "unstakeIntent",
    method: "POST",
    path: "/api/unstake/intent",
    summary: "Declare an exit intent (replaces a pending one and restarts the window; 0 cancels)",
    body: unstakeIntentBodySchema,
    errors: [...MEMBER_ERRORS, "AMOUNT_TOO_HIGH"],
  },
  {
    key: "unstakeAction",
    method: "POST",
    path: "/api/unstake/action",
    summary: "Withdraw the pending exit amount once the exit window has passed",
    body: memberBodySchema,
    errors: [...MEMBER_ERRORS, "MISSING_UNSTAKE_INTENT", "INTENT_WINDOW_NOT_FINISHED"],
  },
  {
    key: "claim",
    method: "POST",
    path: "/api/claim",
    summary: "Pay the unclaimed rewards (STRK) to the reward address",
    body: memberBodySchema,
    errors: MEMBER_ERRORS,
  },
  {
    key: "restake",
    method: "POST",
    path: "/api/restake",
    summary: "Claim the rewards and add them to the STRK pool (or enter it)",
    body: memberBodySchema,
    errors: [...MEMBER_ERRORS, "NOTHING_TO_RESTAKE", "VALIDATOR_EXITING", "INSUFFICIENT_BALANCE"],
  },
  {
    key: "validatorMetrics",
    method: "GET",
    path: "/api/metrics/validator",
    summary: "The validator: own stake, commission, pools, current epoch, exit window",
    errors: [],
  },
  {
    key: "userMetrics",
    method: "GET",
    path: "/api/metrics/:userAddress",
    summary: "A user's positions (all pools, or the one of tokenAddress)",
    params: userAddressParamsSchema,
    query: tokenQuerySchema,
    errors: ["UNKNOWN_TOKEN"],
  },
  {
    key: "apy",
    method: "GET",
    path: "/api/apy",
    summary:
      "STRK and BTC APY (rewards restaked once per epoch), with the APR (simple yearly rate) beside it",
    query: tokenQuerySchema,
    errors: ["UNKNOWN_TOKEN"],
  },
];
