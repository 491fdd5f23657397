import { randomUUID } from "node:crypto";
import type { PaymentLedger, ReserveOutcome } from "./PaymentLedger.js";

interface Entry {
  state: "reserved" | "spent";
  token: string;
  expiresAtMs: number;
}

export interface MemoryPaymentLedgerOptions {
  /** Clock in epoch ms (tests move it). */
  now?: () => number;
}

/**
 * The payment ledger of a single gateway process. Atomic because Node runs one callback at a time;
 * with several instances use a shared ledger (Redis) instead.
 */
export class MemoryPaymentLedger implements PaymentLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private sweepAtSize = 1024;

  constructor(options: MemoryPaymentLedgerOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome> {
    const now = this.now();
    const entry = this.entries.get(id);
    if (entry && entry.expiresAtMs > now) {
      return entry.state === "spent" ? { status: "spent" } : { status: "in_progress" };
    }
    const token = randomUUID();
    this.entries.set(id, { state: "reserved", token, expiresAtMs: now + options.holdMs });
    if (this.entries.size >= this.sweepAtSize) this.sweep(now);
    return { status: "reserved", token };
  }

  async release(id: string, token: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry?.state === "reserved" && entry.token === token) this.entries.delete(id);
  }

  async spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    const entry = this.entries.get(id);
    // A spent mark is written even if the reservation expired meanwhile: the money has moved.
    if (entry && entry.token !== token && entry.state === "spent") return;
    this.entries.set(id, { state: "spent", token, expiresAtMs: options.keepUntilMs });
  }

  /** Entries currently held (reserved or spent and unexpired). */
  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    for (const [id, entry] of this.entries) if (entry.expiresAtMs <= now) this.entries.delete(id);
    this.sweepAtSize = Math.max(1024, this.entries.size * 2);
  }
}
