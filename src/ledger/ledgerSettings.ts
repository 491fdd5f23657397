import { z } from "zod/v4";

export const memoryLedgerSettingsSchema = z.strictObject({ type: z.literal("memory") });

/** A ledger in Redis, shared by every gateway instance that uses the same `url` and `keyPrefix`. */
export const redisLedgerSettingsSchema = z.strictObject({
  type: z.literal("redis"),
  url: z.string().regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL"),
  keyPrefix: z.string().optional(),
  /** Timeout of each Redis command, in ms. */
  commandTimeoutMs: z.number().int().positive().optional(),
});

export const ledgerSettingsSchema = z.discriminatedUnion("type", [
  memoryLedgerSettingsSchema,
  redisLedgerSettingsSchema,
]);
export type LedgerSettings = z.infer<typeof ledgerSettingsSchema>;
