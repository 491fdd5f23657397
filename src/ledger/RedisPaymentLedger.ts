import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { PaymentLedger, ReserveOutcome } from "./PaymentLedger.js";

export interface RedisPaymentLedgerOptions {
  /** `redis://host:port/db`; or pass `client`. */
  url?: string;
  /** An ioredis client to use (not closed by `close()`). */
  client?: Redis;
  /** Prefix of every key; instances that share payments share it. */
  keyPrefix?: string;
  /** Timeout of each Redis command, in ms. */
  commandTimeoutMs?: number;
}

const RESERVED = "r:";
const SPENT = "s:";

/** Delete the key only while it still holds this reservation. */
const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/**
 * The payment ledger shared by several gateway instances: a reservation is `SET NX PX` (atomic across
 * instances), a release deletes only its own reservation, a spent mark lives until `keepUntilMs`.
 */
export class RedisPaymentLedger implements PaymentLedger {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: RedisPaymentLedgerOptions) {
    if (!options.client && !options.url) throw new Error("RedisPaymentLedger needs `url` or `client`");
    this.ownsClient = !options.client;
    this.redis =
      options.client ??
      new Redis(options.url as string, {
        commandTimeout: options.commandTimeoutMs ?? 2_000,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
      });
    this.prefix = options.keyPrefix ?? "x402:payment:";
  }

  async reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome> {
    const key = this.prefix + id;
    const token = randomUUID();
    const set = await this.redis.set(key, RESERVED + token, "PX", Math.max(1, options.holdMs), "NX");
    if (set === "OK") return { status: "reserved", token };
    const current = await this.redis.get(key);
    return current?.startsWith(SPENT) ? { status: "spent" } : { status: "in_progress" };
  }

  async release(id: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + id, RESERVED + token);
  }

  async spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    await this.redis.set(
      this.prefix + id,
      SPENT + token,
      "PXAT",
      Math.max(options.keepUntilMs, Date.now() + 1),
    );
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
