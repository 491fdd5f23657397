import { LRUCache } from "lru-cache";
import type { SignerVerdict } from "./SignerBackend.js";

export interface SignerVerdictCacheOptions {
  /** Verdicts kept (least recently used dropped first). */
  maxEntries: number;
  /** How long one verdict is kept, in ms. */
  ttlMs: number;
  /** Keep refusals too (default true); `false` keeps only valid answers. */
  keepRefusals?: boolean;
}

/**
 * The verdicts an on-chain signature check gave (a Starknet account's `is_valid_signature`, an EIP-1271
 * wallet's `isValidSignature`), bounded (LRU) and for a while (TTL), so that one signature costs one node
 * call: concurrent checks of one key share the call in flight. A check that throws (the node cannot
 * tell) is not kept.
 */
export class SignerVerdictCache {
  /** Node calls made, and answers served from the cache. */
  readonly stats = { calls: 0, cached: 0 };
  private readonly verdicts: LRUCache<string, SignerVerdict>;
  private readonly inFlight = new Map<string, Promise<SignerVerdict>>();

  constructor(private readonly options: SignerVerdictCacheOptions) {
    this.verdicts = new LRUCache({ max: options.maxEntries, ttl: options.ttlMs });
  }

  /** The verdict kept for `key`, else `check()`'s (shared with a check of `key` already in flight). */
  async answer(key: string, check: () => Promise<SignerVerdict>): Promise<SignerVerdict> {
    const known = this.verdicts.get(key);
    if (known !== undefined) {
      this.stats.cached++;
      return known;
    }
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    this.stats.calls++;
    const call = check().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    const verdict = await call;
    if (verdict.valid || this.options.keepRefusals !== false) this.verdicts.set(key, verdict);
    return verdict;
  }
}
