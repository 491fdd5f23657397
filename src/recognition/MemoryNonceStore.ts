import type { NonceStore } from "./NonceStore.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";

export interface MemoryNonceStoreOptions {
  /** Most used, unexpired nonces kept; when full, further sign-ins are refused (never forgotten early). */
  maxNonces?: number;
  /** Clock, epoch ms. */
  now?: () => number;
}

/** Used nonces in this process's memory: right for one gateway instance. */
export class MemoryNonceStore implements NonceStore {
  /** Nonce → when it expires (epoch ms). */
  private readonly used = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxNonces: number;

  constructor(options: MemoryNonceStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxNonces = options.maxNonces ?? RECOGNITION_DEFAULTS.maxNonces;
  }

  async use(nonce: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const expiresAt = this.used.get(nonce);
    if (expiresAt !== undefined && expiresAt > now) return false;
    if (this.used.size >= this.maxNonces) this.sweep(now);
    // Forgetting an unexpired used nonce would let its proof be replayed: refuse instead (fail closed).
    if (this.used.size >= this.maxNonces) return false;
    this.used.set(nonce, now + ttlMs);
    return true;
  }

  /** Used nonces held (expired ones may count until swept). */
  get size(): number {
    return this.used.size;
  }

  private sweep(now: number): void {
    for (const [nonce, expiresAt] of this.used) if (expiresAt <= now) this.used.delete(nonce);
  }
}
