import { z } from "zod/v4";

/** The patterns the schemas below check, shared with the fast shape checks (`isPlainPaymentPayload`). */
export const PATTERNS = {
  decimalInteger: /^(0|[1-9][0-9]*)$/,
  caip2Network: /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/,
  evmAddress: /^0x[0-9a-fA-F]{40}$/,
  hex: /^0x[0-9a-fA-F]*$/,
  bytes32: /^0x[0-9a-fA-F]{64}$/,
} as const;

/** A non-negative integer in decimal, no leading zeros: how amounts travel in JSON. */
export const decimalIntegerString = z
  .string()
  .regex(PATTERNS.decimalInteger, "expected a non-negative decimal integer string");

/** CAIP-2 chain id, e.g. `eip155:8453`. */
export const caip2Network = z
  .string()
  .regex(PATTERNS.caip2Network, "expected a CAIP-2 network id such as eip155:8453");

export const evmAddress = z.string().regex(PATTERNS.evmAddress, "expected a 0x-prefixed 20-byte hex address");

export const paymentRequirementsSchema = z.object({
  scheme: z.string().min(1),
  network: caip2Network,
  amount: decimalIntegerString,
  asset: z.string().min(1),
  payTo: z.string().min(1),
  maxTimeoutSeconds: z.number().int().positive(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentRequirements = z.infer<typeof paymentRequirementsSchema>;

export const resourceInfoSchema = z.object({
  url: z.string(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  serviceName: z.string().optional(),
  tags: z.array(z.string()).optional(),
  iconUrl: z.string().optional(),
});
export type ResourceInfo = z.infer<typeof resourceInfoSchema>;

export const paymentRequiredSchema = z.object({
  x402Version: z.literal(2),
  error: z.string().optional(),
  resource: resourceInfoSchema,
  accepts: z.array(paymentRequirementsSchema),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentRequired = z.infer<typeof paymentRequiredSchema>;

export const paymentPayloadSchema = z.object({
  x402Version: z.literal(2, { error: "expected x402Version 2" }),
  resource: resourceInfoSchema.optional(),
  accepted: paymentRequirementsSchema,
  payload: z.record(z.string(), z.unknown()),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentPayload = z.infer<typeof paymentPayloadSchema>;

const hexString = z.string().regex(PATTERNS.hex, "expected a 0x-prefixed hex string");

/** The `payload` of an EVM `exact` / `exact-pq` payment: an EIP-3009 authorization and its signature. */
export const evmExactPayloadSchema = z.object({
  signature: hexString,
  authorization: z.object({
    from: evmAddress,
    to: evmAddress,
    value: decimalIntegerString,
    validAfter: decimalIntegerString,
    validBefore: decimalIntegerString,
    nonce: z.string().regex(PATTERNS.bytes32, "expected 32 bytes of hex"),
  }),
});
export type EvmExactPayload = z.infer<typeof evmExactPayloadSchema>;

/** Largest JSON of a facilitator answer's `extensions` and `extra` passed on to the client, in bytes. */
export const MAX_ANSWER_EXTENSIONS_BYTES = 4096;

/**
 * A JSON object of any keys. Not `z.record`: zod takes an object whose own `constructor` key is an object
 * for a class instance and refuses it, which would turn a settled payment's answer into a malformed one.
 */
const answerRecord = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "expected a JSON object" },
);

/**
 * `extensions` and `extra` as the official packages pass them on (in `PAYMENT-RESPONSE` for a
 * settlement), unless together over {@link MAX_ANSWER_EXTENSIONS_BYTES}: then both are dropped, so
 * a facilitator cannot make the paid response's headers too large for the client to read.
 */
function boundedExtensions<
  T extends { extensions?: Record<string, unknown>; extra?: Record<string, unknown> },
>(answer: T): T {
  if (answer.extensions === undefined && answer.extra === undefined) return answer;
  const size = JSON.stringify([answer.extensions ?? null, answer.extra ?? null]).length;
  if (size <= MAX_ANSWER_EXTENSIONS_BYTES) return answer;
  const { extensions: _extensions, extra: _extra, ...rest } = answer;
  return rest as T;
}

export const verifyResponseSchema = z
  .object({
    isValid: z.boolean(),
    invalidReason: z.string().optional(),
    invalidMessage: z.string().optional(),
    payer: z.string().optional(),
    extensions: answerRecord.optional(),
    extra: answerRecord.optional(),
  })
  .transform(boundedExtensions);
export type VerifyResponse = z.infer<typeof verifyResponseSchema>;

export const settleResponseSchema = z
  .object({
    success: z.boolean(),
    transaction: z.string(),
    network: z.string(),
    payer: z.string().optional(),
    errorReason: z.string().optional(),
    errorMessage: z.string().optional(),
    /** What was settled, in atomic units (schemes such as `upto` settle less than the maximum). */
    amount: decimalIntegerString.optional().catch(undefined),
    extensions: answerRecord.optional(),
    extra: answerRecord.optional(),
  })
  .transform(boundedExtensions);
export type SettleResponse = z.infer<typeof settleResponseSchema>;

export const supportedResponseSchema = z.object({
  kinds: z.array(
    z.object({
      x402Version: z.number().int(),
      scheme: z.string(),
      network: z.string(),
      extra: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  extensions: z.array(z.string()).optional(),
  signers: z.record(z.string(), z.unknown()).optional(),
});
export type SupportedResponse = z.infer<typeof supportedResponseSchema>;

/** EVM networks whose `exact` and `exact-pq` schemes carry an EIP-3009 authorization. */
export const EVM_AUTHORIZATION_SCHEMES: ReadonlySet<string> = new Set(["exact", "exact-pq"]);
export const isEvmNetwork = (network: string): boolean => network.startsWith("eip155:");
/** Solana networks (`solana:<genesis hash prefix>`): `exact` there is a partially signed SPL transfer transaction. */
export const isSvmNetwork = (network: string): boolean => network.startsWith("solana:");
