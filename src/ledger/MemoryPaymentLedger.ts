import { randomUUID } from "../common/digests.js";
import { LRUCache } from "lru-cache";
import type {
  GrantCharge,
  GrantChargeOutcome,
  KeptResponse,
  PassRecord,
  PassUse,
  PaymentLedger,
  ReserveOutcome,
} from "./PaymentLedger.js";

/** Default cap on the responses kept for idempotent retries, in bytes (oldest dropped first). */
export const KEPT_RESPONSES_MAX_BYTES = 16 * 1024 * 1024;

/** A grant's total spending, or one payment's charge against its grants; both forgotten past `expiresAtMs`. */
interface GrantSpending {
  spent: bigint;
  expiresAtMs: number;
}
interface Charge {
  amount: bigint;
  grantIds: string[];
  expiresAtMs: number;
}

interface Entry {
  state: "reserved" | "spent";
  token: string;
  expiresAtMs: number;
}

export interface MemoryPaymentLedgerOptions {
  /** Clock in epoch ms (tests move it). */
  now?: () => number;
  /** Cap on the responses kept for idempotent retries, in bytes; the least recently used go first. */
  keptResponsesMaxBytes?: number;
}

/**
 * The payment ledger of a single gateway process. Atomic because Node runs one callback at a time;
 * with several instances use a shared ledger (Redis) instead.
 */
export class MemoryPaymentLedger implements PaymentLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly grants = new Map<string, GrantSpending>();
  private readonly charges = new Map<string, Charge>();
  private readonly passes = new Map<string, PassRecord>();
  /** `scope payer` → the newest pass id. */
  private readonly passIndex = new Map<string, { id: string; expiresAtMs: number }>();
  private readonly now: () => number;
  private sweepAtSize = 1024;
  private readonly kept: LRUCache<string, KeptResponse>;

  constructor(options: MemoryPaymentLedgerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.kept = new LRUCache<string, KeptResponse>({
      maxSize: options.keptResponsesMaxBytes ?? KEPT_RESPONSES_MAX_BYTES,
      sizeCalculation: keptSize,
      ttlAutopurge: false,
      ttlResolution: 0,
      perf: { now: () => this.now() },
    });
  }

  async keepResponse(identifier: string, response: KeptResponse, ttlMs: number): Promise<void> {
    if (this.kept.get(identifier) !== undefined) return;
    // One larger than the whole cap is not kept (LRUCache refuses it).
    this.kept.set(identifier, response, { ttl: ttlMs });
  }

  async keptResponse(identifier: string): Promise<KeptResponse | undefined> {
    return this.kept.get(identifier);
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
    if (entry?.state === "reserved" && entry.token === token) {
      this.entries.delete(id);
      this.refund(id);
    }
  }

  async chargeGrants(id: string, charge: GrantCharge): Promise<GrantChargeOutcome> {
    const now = this.now();
    if (live(this.charges.get(id), now)) return { status: "charged" };
    for (const grant of charge.grants) {
      const spent = live(this.grants.get(grant.id), now)?.spent ?? 0n;
      if (spent + charge.amount > grant.cap) {
        return { status: "cap_exceeded", grantId: grant.id, spent, cap: grant.cap };
      }
    }
    for (const grant of charge.grants) {
      const spent = live(this.grants.get(grant.id), now)?.spent ?? 0n;
      this.grants.set(grant.id, { spent: spent + charge.amount, expiresAtMs: grant.keepUntilMs });
    }
    const expiresAtMs = Math.max(...charge.grants.map((grant) => grant.keepUntilMs));
    this.charges.set(id, { amount: charge.amount, grantIds: charge.grants.map((g) => g.id), expiresAtMs });
    return { status: "charged" };
  }

  async spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    const entry = this.entries.get(id);
    // A spent mark is written even if the reservation expired meanwhile: the money has moved.
    if (entry && entry.token !== token && entry.state === "spent") return;
    this.entries.set(id, { state: "spent", token, expiresAtMs: options.keepUntilMs });
    this.charges.delete(id); // settled: the grants' charge is final
  }

  async openPass(pass: PassRecord): Promise<void> {
    this.passes.set(pass.id, { ...pass });
    this.passIndex.set(`${pass.scope} ${pass.payer}`, { id: pass.id, expiresAtMs: pass.expiresAtMs });
    if (this.passes.size >= this.sweepAtSize) this.sweep(this.now());
  }

  async usePass(id: string): Promise<PassUse> {
    const pass = live(this.passes.get(id), this.now());
    if (pass === undefined) return { status: "unknown" };
    if (pass.credits === undefined) return { status: "used", remaining: undefined };
    if (pass.credits <= 0) return { status: "used_up" };
    pass.credits -= 1;
    return { status: "used", remaining: pass.credits };
  }

  async passOf(scope: string, payer: string): Promise<string | undefined> {
    return live(this.passIndex.get(`${scope} ${payer}`), this.now())?.id;
  }

  async endPasses(payer: string): Promise<number> {
    let ended = 0;
    for (const [id, pass] of this.passes) {
      if (pass.payer !== payer) continue;
      this.passes.delete(id);
      this.passIndex.delete(`${pass.scope} ${pass.payer}`);
      ended += 1;
    }
    return ended;
  }

  /** Entries currently held (reserved or spent and unexpired). */
  get size(): number {
    return this.entries.size;
  }

  /** Give back what payment `id` charged its grants (nothing was settled). */
  private refund(id: string): void {
    const charge = this.charges.get(id);
    if (charge === undefined) return;
    this.charges.delete(id);
    for (const grantId of charge.grantIds) {
      const grant = this.grants.get(grantId);
      if (grant) grant.spent = grant.spent > charge.amount ? grant.spent - charge.amount : 0n;
    }
  }

  private sweep(now: number): void {
    for (const [id, entry] of this.entries) if (entry.expiresAtMs <= now) this.entries.delete(id);
    for (const map of [this.grants, this.charges, this.passes, this.passIndex]) {
      for (const [id, entry] of map) if (entry.expiresAtMs <= now) map.delete(id);
    }
    this.sweepAtSize = Math.max(1024, this.entries.size * 2);
  }
}

function live<T extends { expiresAtMs: number }>(entry: T | undefined, now: number): T | undefined {
  return entry !== undefined && entry.expiresAtMs > now ? entry : undefined;
}

/** Roughly what a kept response holds in memory: its body, headers and receipt. */
function keptSize(response: KeptResponse): number {
  return Math.max(1, response.body.byteLength + JSON.stringify([response.headers, response.receipt]).length);
}
