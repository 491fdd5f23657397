import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
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
    // Fail closed and fast: no offline queue (a command while disconnected fails at once), no retries,
    // a timeout on every command; ioredis keeps reconnecting in the background, so recovery needs no restart.
    this.redis =
      options.client ??
      new Redis(options.url as string, {
        commandTimeout: this.timeoutMs,
        connectTimeout: this.timeoutMs,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
      });
    // Every command reports its own failure; this only keeps ioredis from printing each reconnect error.
    if (this.ownsClient) this.redis.on("error", () => undefined);
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
      await this.connected();
      return await run();
    } catch (error) {
      throw new LedgerUnavailableError(
        `Redis could not ${operation} the payment: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  /** Waits (at most the command timeout) while a connection is being made; fails at once when there is none. */
  private connected(): Promise<void> {
    const status = this.redis.status;
    if (status === "ready") return Promise.resolve();
    if (status !== "wait" && status !== "connecting" && status !== "connect") {
      return Promise.reject(new Error(`connection is ${status}`));
    }
    if (status === "wait") void this.redis.connect().catch(() => undefined);
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.redis.off("ready", onReady);
        this.redis.off("close", onClose);
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => done();
      const onClose = () => done(new Error("connection closed"));
      const timer = setTimeout(
        () => done(new Error(`not connected within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      this.redis.once("ready", onReady);
      this.redis.once("close", onClose);
    });
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
