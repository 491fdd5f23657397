import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { openFailFastRedis, whenRedisReady } from "../common/openFailFastRedis.js";
import { BaseError } from "../common/BaseError.js";
import type { PaymentLedger, ReserveOutcome } from "./PaymentLedger.js";

export interface RedisPaymentLedgerOptions {
  /** `redis://host:port/db`; or pass `client`. */
  url?: string;
  /** An ioredis client to use (not closed by `close()`). */
  client?: Redis;
  /** Prefix of every key; instances that share payments share it. */
  keyPrefix?: string;
  /** Timeout of each Redis command (and of waiting for the first connection), in ms. */
  commandTimeoutMs?: number;
}

/** Thrown when Redis cannot answer in time: the paywall fails closed with `503 ledger_unavailable`. */
export class LedgerUnavailableError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("ledger_unavailable", message, { cause: options.cause, docsPath: "docs/errors.md" });
  }
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
  private readonly timeoutMs: number;

  constructor(options: RedisPaymentLedgerOptions) {
    if (!options.client && !options.url) throw new Error("RedisPaymentLedger needs `url` or `client`");
    this.ownsClient = !options.client;
    this.timeoutMs = options.commandTimeoutMs ?? 2_000;
    this.redis = options.client ?? openFailFastRedis(options.url as string, this.timeoutMs);
    this.prefix = options.keyPrefix ?? "x402:payment:";
  }

  async reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome> {
    const key = this.prefix + id;
    const token = randomUUID();
    try {
      return await this.command("reserve", async () => {
        const set = await this.redis.set(key, RESERVED + token, "PX", Math.max(1, options.holdMs), "NX");
        if (set === "OK") return { status: "reserved", token } as const;
        const current = await this.redis.get(key);
        return current?.startsWith(SPENT)
          ? ({ status: "spent" } as const)
          : ({ status: "in_progress" } as const);
      });
    } catch (error) {
      // A timed-out SET may still run when a slow Redis catches up: undo it (queued behind it), so the
      // payment is not stuck as "in progress" until the hold expires.
      void this.redis.eval(RELEASE_SCRIPT, 1, key, RESERVED + token).catch(() => undefined);
      throw error;
    }
  }

  release(id: string, token: string): Promise<void> {
    return this.command("release", async () => {
      await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + id, RESERVED + token);
    });
  }

  spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    return this.command("spend", async () => {
      await this.redis.set(
        this.prefix + id,
        SPENT + token,
        "PXAT",
        Math.max(options.keepUntilMs, Date.now() + 1),
      );
    });
  }

  /** Runs `run` once connected; any Redis failure becomes a {@link LedgerUnavailableError}. */
  private async command<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      await whenRedisReady(this.redis, this.timeoutMs);
      return await run();
    } catch (error) {
      throw new LedgerUnavailableError(
        `Redis could not ${operation} the payment: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
