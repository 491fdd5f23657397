/**
 * Sign-in nonces already used (nonces themselves are stateless, see SignInNonces). `use` answers `true`
 * for the first caller only, atomically, across every process sharing the store.
 */
export interface NonceStore {
  /** Mark `nonce` used for `ttlMs` (until it expires anyway); `true` if it was not used before. */
  use(nonce: string, ttlMs: number): Promise<boolean>;
}
