import { Redis } from "ioredis";
import type { Logger } from "../common/Logger.js";
import type { NonceStore } from "./NonceStore.js";

export interface RedisNonceStoreOptions {
  /** A connected ioredis client (shared with the ledger), or a `redis://` URL to connect to. */
  redis: Redis | string;
  /** Prefix of the keys; default `x402:siwx:nonce:`. */
  keyPrefix?: string;
  /** Where connection errors of a client this store opened are reported (commands fail on their own). */
  logger?: Logger;
}

/**
 * Nonces in Redis, so a challenge issued by one gateway instance can be answered at another and
 * still be used once: `SET NX PX` to issue, `DEL` (atomic, answers how many keys it removed) to consume.
 */
export class RedisNonceStore implements NonceStore {
  private readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly ownsClient: boolean;

  constructor(options: RedisNonceStoreOptions) {
    this.ownsClient = typeof options.redis === "string";
    this.redis =
      typeof options.redis === "string"
        ? new Redis(options.redis, { lazyConnect: true, maxRetriesPerRequest: 1 })
        : options.redis;
    this.keyPrefix = options.keyPrefix ?? "x402:siwx:nonce:";
    if (this.ownsClient) {
      const logger = options.logger;
      this.redis.on("error", (error: Error) =>
        logger?.warn(
          { event: "nonce_store_error", err: error.message },
          "Redis nonce store connection error",
        ),
      );
    }
  }

  async issue(nonce: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keyPrefix + nonce, "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
  }

  async consume(nonce: string): Promise<boolean> {
    return (await this.redis.del(this.keyPrefix + nonce)) === 1;
  }

  /** Closes the connection if this store opened it. */
  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
