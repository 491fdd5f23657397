import type { z } from "zod/v4";
import { GatewayError } from "../protocol/errors.js";
import {
  settleResponseSchema,
  supportedResponseSchema,
  verifyResponseSchema,
  type PaymentPayload,
  type PaymentRequirements,
} from "../protocol/schemas.js";
import type { Facilitator } from "./Facilitator.js";

/**
 * The official `FacilitatorClient` of `@x402/core` (e.g. `HTTPFacilitatorClient`, or CDP's client with
 * its JWT auth headers), structurally: what `x402({ facilitator })` accepts besides its own settings.
 */
export interface FacilitatorClient {
  verify(payload: unknown, requirements: unknown): Promise<unknown>;
  settle(payload: unknown, requirements: unknown): Promise<unknown>;
  getSupported(): Promise<unknown>;
}

export function isFacilitatorClient(value: unknown): value is FacilitatorClient {
  const candidate = value as Partial<FacilitatorClient> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.verify === "function" &&
    typeof candidate.settle === "function" &&
    typeof candidate.getSupported === "function"
  );
}

const RETRY_AFTER_SECONDS = 5;

/**
 * The paywall's {@link Facilitator} over an official client: answers are validated like
 * HttpFacilitator's, and a thrown call is `503 facilitator_unavailable` — for `/settle` an outcome the
 * paywall then resolves on chain, since the client cannot say whether the request reached the facilitator.
 */
export function fromFacilitatorClient(client: FacilitatorClient): Facilitator {
  return {
    verify: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      call("verify", verifyResponseSchema, () => client.verify(payload, requirements)),
    settle: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      call("settle", settleResponseSchema, () => client.settle(payload, requirements)),
    supported: () => call("supported", supportedResponseSchema, () => client.getSupported()),
  };
}

async function call<T extends z.ZodType>(
  endpoint: "verify" | "settle" | "supported",
  schema: T,
  run: () => Promise<unknown>,
): Promise<z.output<T>> {
  let answer: unknown;
  try {
    answer = await run();
  } catch (error) {
    throw new GatewayError(
      "facilitator_unavailable",
      `the facilitator client failed on /${endpoint}: ${error instanceof Error ? error.message : String(error)}`,
      { details: { endpoint, reason: "client_error" }, cause: error, retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    throw new GatewayError("facilitator_error", `the facilitator client's /${endpoint} answer is malformed`, {
      details: { endpoint, reason: "malformed" },
      cause: parsed.error,
    });
  }
  return parsed.data;
}
