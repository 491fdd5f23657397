import type { Redis } from "ioredis";
import { newRedis } from "./newRedis.js";

/**
 * An ioredis client that fails closed and fast: no offline queue (a command while disconnected fails at
 * once), no retries, a timeout on every command; ioredis keeps reconnecting in the background, so
 * recovery needs no restart. Connection errors are left to each command to report.
 */
export function openFailFastRedis(url: string, timeoutMs: number): Redis {
  const redis = newRedis(url, {
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // Every command reports its own failure; this only keeps ioredis from printing each reconnect error.
  redis.on("error", () => undefined);
  return redis;
}

/** Waits (at most `timeoutMs`) while a connection is being made; rejects at once when there is none. */
export function whenRedisReady(redis: Redis, timeoutMs: number): Promise<void> {
  const status = redis.status;
  if (status === "ready") return Promise.resolve();
  if (status !== "wait" && status !== "connecting" && status !== "connect") {
    return Promise.reject(new Error(`connection is ${status}`));
  }
  if (status === "wait") void redis.connect().catch(() => undefined);
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new Error("connection closed"));
    const timer = setTimeout(() => done(new Error(`not connected within ${timeoutMs} ms`)), timeoutMs);
    redis.once("ready", onReady);
    redis.once("close", onClose);
  });
}
