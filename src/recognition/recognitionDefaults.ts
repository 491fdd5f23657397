/** Defaults of the recognition settings (`recognitionSettingsSchema`), written once. */
export const RECOGNITION_DEFAULTS = {
  /** Timeout of one `starknet_call`, in ms. */
  timeoutMs: 5_000,
  /** How long a `0x1` answer is trusted, in ms. */
  positiveTtlMs: 10 * 60_000,
  /** How long a `0x0` answer is trusted, in ms: short, so a payer who just paid is asked again soon. */
  negativeTtlMs: 5_000,
  /** How long past its TTL a `0x1` answer may still be served while the RPC fails, in ms. */
  staleIfErrorMs: 60 * 60_000,
  /** Most addresses the cache remembers. */
  maxEntries: 10_000,
  /** How long a sign-in challenge (its nonce) stays valid, in seconds. */
  signInTtlSeconds: 300,
  /** Clock skew tolerated on `issuedAt` / `notBefore`, in ms. */
  clockSkewMs: 60_000,
  /** Most unused nonces an in-memory store keeps. */
  maxNonces: 100_000,
} as const;
