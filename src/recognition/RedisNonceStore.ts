import type { Redis } from "ioredis";
import type { Logger } from "../common/Logger.js";
import { newRedis } from "../common/newRedis.js";
import type { NonceStore } from "./NonceStore.js";
import { NONCE_KEY_PREFIX } from "./redisKeyPrefixes.js";

export interface RedisNonceStoreOptions {
  /** A connected ioredis client (shared with the ledger), or a `redis://` URL to connect to. */
  redis: Redis | string;
  /** Prefix of the keys; default `x402:siwx:nonce:` (x402() and the gateway derive it from `ledger.keyPrefix`). */
  keyPrefix?: string;
  /** Where connection errors of a client this store opened are reported (commands fail on their own). */
  logger?: Logger;
}

/**
 * Used nonces in Redis, so a challenge issued by one gateway instance can be answered at another and
 * still be used once: `SET NX PX` marks a nonce used until it expires, and says whether it was first.
 */
export class RedisNonceStore implements NonceStore {
  private readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly ownsClient: boolean;

  constructor(options: RedisNonceStoreOptions) {
    this.ownsClient = typeof options.redis === "string";
    this.redis =
      typeof options.redis === "string"
        ? newRedis(options.redis, { lazyConnect: true, maxRetriesPerRequest: 1 })
        : options.redis;
    this.keyPrefix = options.keyPrefix ?? NONCE_KEY_PREFIX;
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

  async use(nonce: string, ttlMs: number): Promise<boolean> {
    const set = await this.redis.set(this.keyPrefix + nonce, "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
    return set === "OK";
  }

  /** Closes the connection if this store opened it. */
  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
