import { z } from "zod/v4";

/**
 * Where to ask whether a payer is recognized (`est_ouverte(payer)` on Starknet, docs/recognition.md,
 * "Configuration").
 */
export const recognitionSettingsSchema = z.strictObject({
  /** JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10`. */
  rpcUrl: z.url().meta({ description: "JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10`." }),
  /**
   * Node URL the offer's `starknet-recognition` extension names for clients to check themselves, when
   * `rpcUrl` must stay private (it carries a key, or is on a private network). Default: `rpcUrl`.
   */
  announceRpcUrl: z.url().optional().meta({
    description:
      "Node URL the offer's `starknet-recognition` extension names for clients to check themselves, when `rpcUrl` must stay private (it carries a key, or is on a private network). Default: `rpcUrl`.",
  }),
  /** Address of the contract exposing `est_ouverte`. */
  contract: z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a felt (0x + 1–64 hex digits)")
    .meta({ description: "Address of the contract exposing `est_ouverte`." }),
  /** Timeout of one `starknet_call` (connect, answer and body), in ms. Default 5000. */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of one `starknet_call` (connect, answer and body), in ms. Default 5000." }),
  /** How long a `0x1` (recognized) answer is trusted, in ms. Default 600000 (10 min). */
  positiveTtlMs: z.number().int().nonnegative().optional().meta({
    description: "How long a `0x1` (recognized) answer is trusted, in ms. Default 600000 (10 min).",
  }),
  /** How long a `0x0` (not recognized) answer is trusted, in ms. Default 5000. */
  negativeTtlMs: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .meta({ description: "How long a `0x0` (not recognized) answer is trusted, in ms. Default 5000." }),
  /** How long past its TTL a `0x1` may be served while the node fails, in ms. Default 3600000 (1 h). */
  staleIfErrorMs: z.number().int().nonnegative().optional().meta({
    description:
      "How long past its TTL a `0x1` may be served while the node fails, in ms. Default 3600000 (1 h).",
  }),
  /** Addresses kept in the recognition cache (least recently used dropped first). Default 10000. */
  maxEntries: z.number().int().positive().optional().meta({
    description:
      "Addresses kept in the recognition cache (least recently used dropped first). Default 10000.",
  }),
  /** How long a sign-in nonce stays valid, in seconds. */
  signInTtlSeconds: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "How long a sign-in nonce stays valid, in seconds." }),
  /**
   * Secret of the stateless sign-in nonces (at least 32 characters, e.g. `${SIGN_IN_SECRET}`). Instances
   * behind one load balancer must share it; unset, each process makes its own at start-up.
   */
  signInSecret: z.string().min(32, "expected at least 32 characters").optional().meta({
    description:
      "Secret of the stateless sign-in nonces (at least 32 characters, e.g. `${SIGN_IN_SECRET}`). Instances behind one load balancer must share it; unset, each process makes its own at start-up.",
  }),
});
export type RecognitionSettings = z.infer<typeof recognitionSettingsSchema>;
