import { z } from "zod/v4";

/** Where to ask whether a payer is recognized (`est_ouverte(payer)` on Starknet, WIRE.md §3). */
export const recognitionSettingsSchema = z.strictObject({
  /** JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10`. */
  rpcUrl: z.url(),
  /**
   * Node URL the offer's `starknet-recognition` extension names for clients to check themselves,
   * when `rpcUrl` must stay private (it carries a key, or is on a private network). Default: `rpcUrl`.
   */
  announceRpcUrl: z.url().optional(),
  /** Address of the contract exposing `est_ouverte`. */
  contract: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a felt (0x + 1–64 hex digits)"),
  timeoutMs: z.number().int().positive().optional(),
  positiveTtlMs: z.number().int().nonnegative().optional(),
  negativeTtlMs: z.number().int().nonnegative().optional(),
  staleIfErrorMs: z.number().int().nonnegative().optional(),
  maxEntries: z.number().int().positive().optional(),
  /** How long a sign-in nonce stays valid, in seconds. */
  signInTtlSeconds: z.number().int().positive().optional(),
  /**
   * Secret of the stateless sign-in nonces (at least 32 characters, e.g. `${SIGN_IN_SECRET}`). Instances
   * behind one load balancer must share it; unset, each process makes its own at start-up.
   */
  signInSecret: z.string().min(32, "expected at least 32 characters").optional(),
});
export type RecognitionSettings = z.infer<typeof recognitionSettingsSchema>;
