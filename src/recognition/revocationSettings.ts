import { z } from "zod/v4";
import { publicKeyListSchema } from "../protocol/cbor/publicKeyList.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";

/** Defaults of the revocation settings, written once. */
export const REVOCATION_DEFAULTS = {
  /** How long a revoked payer stays denied, in ms: a day, well past the default TTL + stale-if-error (70 min). */
  holdMs: 24 * 60 * 60_000,
  /** Prefix of the Redis keys (`{prefix}payers`, a sorted set) and channel (`{prefix}events`). */
  keyPrefix: "x402:revoked:",
} as const;

/** Revoked payers (refunds): how long they stay denied, and where instances share them. */
export const revocationSettingsSchema = z.strictObject({
  /**
   * How long a revoked payer stays denied sign-in whatever the chain answers, in ms. Default 86400000 (24 h);
   * never less than `positiveTtlMs + staleIfErrorMs` of any recognition setting (refused at start-up).
   */
  holdMs: z.number().int().positive().optional().meta({
    description:
      "How long a revoked payer stays denied sign-in whatever the chain answers, in ms. Default 86400000 (24 h); never less than `positiveTtlMs + staleIfErrorMs` of any recognition setting (refused at start-up).",
  }),
  /**
   * With a Redis ledger: prefix of the shared revocation set (`{prefix}payers`) and channel
   * (`{prefix}events`). Default `{ledger.keyPrefix}revoked:`, or `x402:revoked:` when the ledger has no
   * `keyPrefix`.
   */
  keyPrefix: z.string().min(1).optional().meta({
    description:
      "With a Redis ledger: prefix of the shared revocation set (`{prefix}payers`) and channel (`{prefix}events`). Default `{ledger.keyPrefix}revoked:`, or `x402:revoked:` when the ledger has no `keyPrefix`.",
  }),
  trustedSigners: publicKeyListSchema(
    "Facilitator receipt keys (public keys in hex) whose signed `revokes` claims a revocation may carry as proof of the refund (`revocation` field). Default none: a revocation that carries one is refused.",
  ).optional(),
});
export type RevocationSettings = z.infer<typeof revocationSettingsSchema>;

/** The TTLs a recognition setting caches for; defaults filled. */
type CachedFor = { positiveTtlMs?: number | undefined; staleIfErrorMs?: number | undefined };

/**
 * The shortest hold that is safe: a `0x1` fetched while the revocation was made can be cached
 * and served stale for `positiveTtlMs + staleIfErrorMs`, so the hold must outlast it.
 */
export function minimumRevocationHoldMs(recognitions: readonly CachedFor[]): number {
  return Math.max(
    0,
    ...recognitions.map(
      (settings) =>
        (settings.positiveTtlMs ?? RECOGNITION_DEFAULTS.positiveTtlMs) +
        (settings.staleIfErrorMs ?? RECOGNITION_DEFAULTS.staleIfErrorMs),
    ),
  );
}

/**
 * The rule on `revocation.holdMs`: it may not be shorter than {@link minimumRevocationHoldMs}. The settings
 * schema runs it (both `x402()` and the gateway config); undefined when the hold is safe.
 */
export function revocationHoldProblem(
  holdMs: number | undefined,
  recognitions: readonly CachedFor[],
): string | undefined {
  const minimum = minimumRevocationHoldMs(recognitions);
  if (holdMs === undefined || holdMs >= minimum) return undefined;
  return `expected at least ${minimum} (positiveTtlMs + staleIfErrorMs of a recognition setting), got ${holdMs}: a cached 0x1 could outlive the revocation`;
}

/**
 * The hold to use, from settings the schema accepted ({@link revocationHoldProblem}): `holdMs` when set,
 * else the default, lengthened if a recognition setting caches longer.
 */
export function revocationHoldMs(holdMs: number | undefined, recognitions: readonly CachedFor[]): number {
  return holdMs ?? Math.max(REVOCATION_DEFAULTS.holdMs, minimumRevocationHoldMs(recognitions));
}
