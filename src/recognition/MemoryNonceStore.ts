import { LRUCache } from "lru-cache";
import type { NonceStore } from "./NonceStore.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";

export interface MemoryNonceStoreOptions {
  /** Most unused nonces kept; past it the oldest are forgotten (their sign-ins then fail). */
  maxNonces?: number;
  /** Clock, epoch ms. */
  now?: () => number;
}

/** Nonces in this process's memory: right for one gateway instance. */
export class MemoryNonceStore implements NonceStore {
  /** Nonce → when it expires (epoch ms). The LRU's own TTL only frees the memory. */
  private readonly nonces: LRUCache<string, number>;
  private readonly now: () => number;

  constructor(options: MemoryNonceStoreOptions = {}) {
    const now = options.now ?? Date.now;
    this.now = now;
    this.nonces = new LRUCache<string, number>({
      max: options.maxNonces ?? RECOGNITION_DEFAULTS.maxNonces,
      ttl: 60_000, // every entry gets its own TTL in issue(); this is only the required default
      perf: { now },
      ttlResolution: 0,
      ttlAutopurge: false,
    });
  }

  async issue(nonce: string, ttlMs: number): Promise<void> {
    this.nonces.set(nonce, this.now() + ttlMs, { ttl: Math.max(1, ttlMs) });
  }

  async consume(nonce: string): Promise<boolean> {
    const expiresAt = this.nonces.get(nonce);
    // delete() before answering makes the use single, also for an expired nonce.
    this.nonces.delete(nonce);
    return expiresAt !== undefined && this.now() < expiresAt;
  }

  /** Nonces still held (expired ones may count until touched). */
  get size(): number {
    return this.nonces.size;
  }
}
