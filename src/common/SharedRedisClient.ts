import {
  closeSharedRedis,
  openSharedRedis,
  whenRedisReady,
  type OpenSharedRedisOptions,
  type RedisTopology,
  type SharedRedis,
} from "./openSharedRedis.js";

/**
 * A Redis client opened on first need (ioredis loads then), or one given by the caller: `ready()` waits
 * (at most the timeout) for its connection, `close()` closes it only when this opened it.
 */
export class SharedRedisClient {
  private readonly client: Promise<SharedRedis>;
  private readonly owned: boolean;
  private readonly timeoutMs: number;

  constructor(where: SharedRedis | RedisTopology, options: OpenSharedRedisOptions) {
    this.owned = !("status" in where);
    this.timeoutMs = options.timeoutMs;
    this.client = this.owned
      ? openSharedRedis(where as RedisTopology, options)
      : Promise.resolve(where as SharedRedis);
    // Reported by the first command that needs the client.
    this.client.catch(() => undefined);
  }

  /** The client, once connected; rejects when it cannot be opened or does not connect in time. */
  async ready(): Promise<SharedRedis> {
    const redis = await this.client;
    await whenRedisReady(redis, this.timeoutMs);
    return redis;
  }

  /** The client as it is (connected or not). */
  get(): Promise<SharedRedis> {
    return this.client;
  }

  async close(): Promise<void> {
    if (this.owned) await closeSharedRedis(await this.client.catch(() => undefined));
  }
}
