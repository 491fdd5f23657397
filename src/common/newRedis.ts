import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";

const require = createRequire(import.meta.url);

/**
 * A new ioredis client. ioredis is required here, by the first Redis-backed part built (ledger, nonce
 * store, revocations), not by importing the package: most users never configure Redis. A synchronous
 * require keeps those parts' constructors synchronous.
 */
export function newRedis(url: string, options: RedisOptions): Redis {
  const { Redis: RedisClient } = require("ioredis") as { Redis: typeof Redis };
  return new RedisClient(url, options);
}
