import { z } from "zod/v4";

export const memoryLedgerSettingsSchema = z.strictObject({
  /** `memory` (default): one instance; `redis`: shared by every instance. */
  type: z
    .literal("memory")
    .meta({ description: "`memory` (default): one instance; `redis`: shared by every instance." }),
});

const redisUrl = z.string().regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL");

/** `WAIT` after each ledger write that guards money, before anything is verified, settled or served. */
export const ledgerWaitSchema = z.union([
  z.literal(false),
  z.strictObject({
    replicas: z.number().int().positive().default(1).meta({
      description: "Replicas that must acknowledge the write (`WAIT <replicas> <timeoutMs>`). Default 1.",
    }),
    timeoutMs: z.number().int().positive().default(500).meta({
      description:
        "How long to wait for them, in ms (keep it below `commandTimeoutMs`). Default 500. A reservation not acknowledged in time is answered `503 ledger_unavailable`.",
    }),
  }),
]);
export type LedgerWait = z.infer<typeof ledgerWaitSchema>;

/**
 * A ledger in Redis, shared by every gateway instance that uses the same Redis and `keyPrefix`: one
 * server (`url`), a Redis Cluster (`cluster.nodes`) or a master watched by Sentinel (`sentinel`).
 */
export const redisLedgerSettingsSchema = z
  .strictObject({
    type: z
      .literal("redis")
      .meta({ description: "`memory` (default): one instance; `redis`: shared by every instance." }),
    url: redisUrl.optional().meta({
      description:
        "Redis URL (`redis://` or `rediss://`), the same for every instance that shares payments. Or `cluster`, or `sentinel`.",
    }),
    cluster: z
      .strictObject({
        nodes: z.array(redisUrl).min(1).meta({
          description:
            "Some of the cluster's nodes (`redis://host:port`; credentials and `rediss://` of the first apply to all); the rest are discovered.",
        }),
      })
      .optional()
      .meta({
        description:
          "A Redis Cluster instead of `url`. Every ledger key carries the hash tag `{keyPrefix}`, so each Lua script runs in one slot. See docs/SCALING.md.",
      }),
    sentinel: z
      .strictObject({
        sentinels: z.array(redisUrl).min(1).meta({
          description:
            "The Sentinels (`redis://host:26379`; credentials of the first apply to the sentinels and the master).",
        }),
        name: z.string().min(1).meta({ description: "The master's name in the Sentinels' configuration." }),
      })
      .optional()
      .meta({ description: "A master watched by Redis Sentinel instead of `url`. See docs/SCALING.md." }),
    keyPrefix: z.string().optional().meta({
      description:
        "Prefix of the ledger's keys, so several gateways can share one Redis. Default `x402:payment:`. Set, sign-in nonces (`{keyPrefix}siwx:nonce:`) and revocations (`{keyPrefix}revoked:`) live under it too.",
    }),
    commandTimeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: "Timeout of each Redis command, in ms." }),
    wait: ledgerWaitSchema.optional().meta({
      description:
        "Acknowledged writes: after reserving a payment (and charging its grants) and after marking it spent, `WAIT` until this many replicas have the write. Default `{ replicas: 1, timeoutMs: 500 }` with `cluster` or `sentinel`, off (`false`) with `url`. See docs/SCALING.md for what a failover can lose with and without it.",
    }),
  })
  .refine(
    (settings) =>
      [settings.url, settings.cluster, settings.sentinel].filter((where) => where !== undefined).length === 1,
    { message: "a redis ledger needs exactly one of url, cluster or sentinel" },
  );

export const ledgerSettingsSchema = z.discriminatedUnion("type", [
  memoryLedgerSettingsSchema,
  redisLedgerSettingsSchema,
]);
export type LedgerSettings = z.infer<typeof ledgerSettingsSchema>;
export type RedisLedgerSettings = z.infer<typeof redisLedgerSettingsSchema>;

/** The `WAIT` a Redis ledger does: as configured, else on for Cluster and Sentinel and off for one server. */
export function ledgerWaitOf(settings: Pick<RedisLedgerSettings, "wait" | "url">): LedgerWait {
  if (settings.wait !== undefined) return settings.wait;
  return settings.url === undefined ? { replicas: 1, timeoutMs: 500 } : false;
}
