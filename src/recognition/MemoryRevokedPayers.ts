import {
  revocationKey,
  type Revocation,
  type RevocationListener,
  type RevocationObserver,
  type RevokedPayers,
} from "./RevokedPayers.js";
import { REVOCATION_DEFAULTS } from "./revocationSettings.js";

/** Past this many entries, expired ones are swept before another is added. */
const SWEEP_AT = 10_000;

export interface MemoryRevokedPayersOptions {
  /** How long a revoked payer stays denied, in ms. */
  holdMs?: number;
  /** Clock, epoch ms. */
  now?: () => number;
  observer?: RevocationObserver;
}

/**
 * Revoked payers as this process's memory knows them: right for one instance, and the local mirror of
 * {@link RedisRevokedPayers}. A revoked payer is dropped from every served cache before `revoke` returns.
 */
export class MemoryRevokedPayers implements RevokedPayers {
  /** Payer (lower case) → until when it is denied, epoch ms. */
  private readonly denied = new Map<string, number>();
  private readonly listeners = new Set<RevocationListener>();
  private readonly holdMs: number;
  private readonly now: () => number;
  private readonly observer: RevocationObserver | undefined;

  constructor(options: MemoryRevokedPayersOptions = {}) {
    this.holdMs = options.holdMs ?? REVOCATION_DEFAULTS.holdMs;
    this.now = options.now ?? Date.now;
    this.observer = options.observer;
  }

  async revoke(payer: string, options: { reason?: string; until?: number } = {}): Promise<Revocation> {
    const revocation = this.apply(revocationKey(payer), options.until ?? this.now() + this.holdMs);
    this.observer?.revocation?.("local", "applied");
    return options.reason === undefined ? revocation : { ...revocation, reason: options.reason };
  }

  /**
   * Deny `payer` (lower case) until `until` (or longer, if already so) and drop it from every listener.
   * What a revocation does in this process, wherever it came from.
   */
  apply(payer: string, until: number): Revocation {
    if (this.denied.size >= SWEEP_AT) this.sweep();
    const kept = Math.max(until, this.denied.get(payer) ?? 0);
    this.denied.set(payer, kept);
    for (const listener of this.listeners) listener.forget(payer);
    return { payer, until: kept };
  }

  /** Drop everything every listener knows (revocations may have been missed); denials are kept. */
  clearListeners(): void {
    for (const listener of this.listeners) listener.clear();
  }

  deniedHere(payer: string): boolean {
    const until = this.denied.get(payer);
    if (until === undefined) return false;
    if (this.now() < until) return true;
    this.denied.delete(payer);
    return false;
  }

  async isRevoked(payer: string): Promise<boolean> {
    return this.deniedHere(payer);
  }

  serve(listener: RevocationListener): void {
    this.listeners.add(listener);
  }

  /** Payers denied now, with until when (for tests and operators). */
  list(): Revocation[] {
    const now = this.now();
    return [...this.denied].filter(([, until]) => until > now).map(([payer, until]) => ({ payer, until }));
  }

  private sweep(): void {
    const now = this.now();
    for (const [payer, until] of this.denied) if (until <= now) this.denied.delete(payer);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
