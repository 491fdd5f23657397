import { evmExactPayloadSchema } from "./schemas.js";

type EvmExactParse = ReturnType<typeof evmExactPayloadSchema.safeParse>;

/** One parse per payload object: the paywall reads a payment's EVM payload four times per request. */
const parses = new WeakMap<object, EvmExactParse>();

/**
 * `evmExactPayloadSchema.safeParse(payload)`, remembered per payload object (a decoded payment is
 * never changed afterwards; the parsed data is only read).
 */
export function parseEvmExactPayload(payload: unknown): EvmExactParse {
  if (typeof payload !== "object" || payload === null) return evmExactPayloadSchema.safeParse(payload);
  let parse = parses.get(payload);
  if (parse === undefined) {
    parse = evmExactPayloadSchema.safeParse(payload);
    parses.set(payload, parse);
  }
  return parse;
}
