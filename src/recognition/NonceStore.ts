/**
 * Sign-in nonces the gateway issued and that were not used yet. A nonce is good once: `consume`
 * answers `true` for the first caller only, atomically, across every process sharing the store.
 */
export interface NonceStore {
  /** Remember `nonce` as issued for `ttlMs`. */
  issue(nonce: string, ttlMs: number): Promise<void>;
  /** `true` if `nonce` was issued, is unexpired and unused; it is used from now on. */
  consume(nonce: string): Promise<boolean>;
}
