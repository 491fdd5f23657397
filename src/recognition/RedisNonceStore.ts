import type { Logger } from "../common/Logger.js";
import type { RedisTopology, SharedRedis } from "../common/openSharedRedis.js";
import { SharedRedisClient } from "../common/SharedRedisClient.js";
import type { NonceStore } from "./NonceStore.js";
import { NONCE_KEY_PREFIX } from "./redisKeyPrefixes.js";

export interface RedisNonceStoreOptions {
  /**
   * A connected ioredis client (shared with the ledger), or where to connect: a `redis://` URL or the
   * ledger's topology (`url`, `cluster` or `sentinel`).
   */
  redis: SharedRedis | string | RedisTopology;
  /** Prefix of the keys; default `x402:siwx:nonce:` (x402() and the gateway derive it from `ledger.keyPrefix`). */
  keyPrefix?: string;
  /** Where connection errors of a client this store opened are reported (commands fail on their own). */
  logger?: Logger;
  /** Timeout of each command (and of waiting for a connection), in ms; default 2 000. */
  commandTimeoutMs?: number;
}

/**
 * Used nonces in Redis, so a challenge issued by one gateway instance can be answered at another and
 * still be used once: `SET NX PX` marks a nonce used until it expires, and says whether it was first.
 * One key per nonce, so in a Redis Cluster nonces spread over every slot.
 */
export class RedisNonceStore implements NonceStore {
  private readonly client: SharedRedisClient;
  private readonly keyPrefix: string;

  constructor(options: RedisNonceStoreOptions) {
    const where = options.redis;
    this.client = new SharedRedisClient(typeof where === "string" ? { url: where } : where, {
      timeoutMs: options.commandTimeoutMs ?? 2_000,
    });
    this.client
      .get()
      .catch((error: Error) =>
        options.logger?.warn(
          { event: "nonce_store_error", err: error.message },
          "Redis nonce store could not be opened",
        ),
      );
    this.keyPrefix = options.keyPrefix ?? NONCE_KEY_PREFIX;
  }

  async use(nonce: string, ttlMs: number): Promise<boolean> {
    const redis = await this.client.ready();
    const set = await redis.set(this.keyPrefix + nonce, "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
    return set === "OK";
  }

  /** Closes the connection if this store opened it. */
  close(): Promise<void> {
    return this.client.close();
  }
}
