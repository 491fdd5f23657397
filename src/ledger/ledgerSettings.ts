import { z } from "zod/v4";

export const memoryLedgerSettingsSchema = z.strictObject({
  /** `memory` (default): one instance; `redis`: shared by every instance. */
  type: z
    .literal("memory")
    .meta({ description: "`memory` (default): one instance; `redis`: shared by every instance." }),
});

/** A ledger in Redis, shared by every gateway instance that uses the same `url` and `keyPrefix`. */
export const redisLedgerSettingsSchema = z.strictObject({
  /** `memory` (default): one instance; `redis`: shared by every instance. */
  type: z
    .literal("redis")
    .meta({ description: "`memory` (default): one instance; `redis`: shared by every instance." }),
  /** Redis URL (`redis://` or `rediss://`), the same for every instance that shares payments. */
  url: z
    .string()
    .regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL")
    .meta({
      description: "Redis URL (`redis://` or `rediss://`), the same for every instance that shares payments.",
    }),
  /**
   * Prefix of the ledger's keys, so several gateways can share one Redis. Default `x402:payment:`. Set,
   * sign-in nonces (`{keyPrefix}siwx:nonce:`) and revocations (`{keyPrefix}revoked:`) live under it too.
   */
  keyPrefix: z.string().optional().meta({
    description:
      "Prefix of the ledger's keys, so several gateways can share one Redis. Default `x402:payment:`. Set, sign-in nonces (`{keyPrefix}siwx:nonce:`) and revocations (`{keyPrefix}revoked:`) live under it too.",
  }),
  /** Timeout of each Redis command, in ms. */
  commandTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of each Redis command, in ms." }),
});

export const ledgerSettingsSchema = z.discriminatedUnion("type", [
  memoryLedgerSettingsSchema,
  redisLedgerSettingsSchema,
]);
export type LedgerSettings = z.infer<typeof ledgerSettingsSchema>;
