/** One payer denied recognition until `until`. */
export interface Revocation {
  /** The payer's address, lower case (as the recognition cache keys it). */
  payer: string;
  /** Until when it is denied, epoch ms (a longer earlier revocation is kept). */
  until: number;
  reason?: string;
}

/** What a revocation registry drops a payer from: a {@link RecognitionCache}. */
export interface RevocationListener {
  /** Drop what is known about `payer` (lower case). */
  forget(payer: string): void;
  /** Drop everything: revocations may have been missed (a lost subscription). */
  clear(): void;
}

/** Receives what the registry does; every method optional, none may throw. */
export interface RevocationObserver {
  /** A revocation made here (`local`) or heard from another instance (`peer`); `failed`: not shared. */
  revocation?(origin: "local" | "peer", outcome: "applied" | "failed"): void;
}

/**
 * Payers whose recognition was revoked (a refunded payment): they are dropped from every cache the
 * registry serves at once and stay denied until their hold ends, whatever the chain still answers.
 */
export interface RevokedPayers {
  /**
   * Deny `payer` (any case) until `until` (default: now + the registry's hold): dropped here at once,
   * then shared. Rejects with a RevocationUnavailableError when it could not be shared (it is denied
   * here all the same).
   */
  revoke(payer: string, options?: { reason?: string; until?: number }): Promise<Revocation>;
  /** Whether this process already knows `payer` (lower case) is denied: no IO, for the fast path. */
  deniedHere(payer: string): boolean;
  /** Whether `payer` (lower case) is denied; rejects when the shared store cannot answer (callers fail closed). */
  isRevoked(payer: string): Promise<boolean>;
  /** Drop revoked payers from `listener` from now on. */
  serve(listener: RevocationListener): void;
  /** Release connections. */
  close(): Promise<void>;
}

/** The key a payer is revoked under: its address in lower case, as the recognition cache keys it. */
export function revocationKey(payer: string): string {
  return payer.toLowerCase();
}
