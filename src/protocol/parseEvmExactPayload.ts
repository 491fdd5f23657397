import { isPlainEvmExactPayload } from "./isPlainPaymentPayload.js";
import { evmExactPayloadSchema } from "./schemas.js";

type EvmExactParse = ReturnType<typeof evmExactPayloadSchema.safeParse>;

/** One parse per payload object: the paywall reads a payment's EVM payload four times per request. */
const parses = new WeakMap<object, EvmExactParse>();

/**
 * `evmExactPayloadSchema.safeParse(payload)`, remembered per payload object (a decoded payment is
 * never changed afterwards; the parsed data is only read). A payload the schema would return as it
 * is (the usual one) is its own data, without a copy.
 */
export function parseEvmExactPayload(payload: unknown): EvmExactParse {
  if (typeof payload !== "object" || payload === null) return evmExactPayloadSchema.safeParse(payload);
  let parse = parses.get(payload);
  if (parse === undefined) {
    parse = isPlainEvmExactPayload(payload)
      ? { success: true, data: payload }
      : evmExactPayloadSchema.safeParse(payload);
    parses.set(payload, parse);
  }
  return parse;
}
