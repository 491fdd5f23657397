import type Database from "better-sqlite3";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS payers (payer TEXT NOT NULL, currency TEXT NOT NULL, balance TEXT NOT NULL,
  PRIMARY KEY (payer, currency));
CREATE TABLE IF NOT EXISTS merchants (pseudonym TEXT NOT NULL, currency TEXT NOT NULL, balance TEXT NOT NULL,
  PRIMARY KEY (pseudonym, currency));
CREATE TABLE IF NOT EXISTS settlements (intent TEXT PRIMARY KEY, payer TEXT NOT NULL, merchant TEXT NOT NULL,
  currency TEXT NOT NULL, amount TEXT NOT NULL, settled_at INTEGER NOT NULL, receipt BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS refunds (intent TEXT PRIMARY KEY, amount TEXT NOT NULL, refunded_at INTEGER NOT NULL,
  revocation BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS grants (grant_id TEXT PRIMARY KEY, cap TEXT NOT NULL, spent TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settlement_grants (intent TEXT NOT NULL, grant_id TEXT NOT NULL,
  PRIMARY KEY (intent, grant_id));
`;

/** A delegation grant a settlement spends under: its id (see CheckedGrant.id) and its cap. */
export interface GrantSpend {
  id: string;
  cap: bigint;
}

export interface Transfer {
  /** Hex SHA-256 of the payment_intent bytes: one intent settles once. */
  intent: string;
  payer: string;
  merchant: string;
  currency: string;
  amount: bigint;
  settledAt: number;
  /** The grants of the payment's delegation chain, each charged `amount` against its cap (none: no chain). */
  grants?: readonly GrantSpend[] | undefined;
}

export type TransferOutcome =
  | { ok: true; receipt: Uint8Array }
  | { ok: false; reason: "intent_already_settled" | "insufficient_funds" | "unknown_payer" }
  | { ok: false; reason: "delegation_cap_exceeded"; grant: string; spent: bigint; cap: bigint };

export interface Refund {
  /** Hex SHA-256 of the payment_intent bytes: the settlement refunded. */
  intent: string;
  /** The receipt presented: must be the one the settlement issued, byte for byte. */
  receipt: Uint8Array;
  /** Amount refunded (at most the amount settled), in the settlement's currency. */
  amount: bigint;
  refundedAt: number;
}

export type RefundOutcome =
  | { ok: true; revocation: Uint8Array }
  | { ok: false; reason: "unknown_receipt" | "already_refunded" | "refund_exceeds_payment" };

/**
 * The local CBOR facilitator's books in SQLite (WAL, synchronous FULL): payer balances by payer id and
 * currency, merchant balances by pseudonym, one row per settled intent with its receipt, and what each
 * delegation grant has spent (the cap holds across every gateway that settles here). Amounts are
 * decimal text so they stay exact; a settlement is one transaction.
 */
export class CborAccountBook {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(file: string) {
    this.db = openDurableDatabase(file, SCHEMA, "the local CBOR facilitator");
    const db = this.db;
    this.statements = {
      getMeta: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)"),
      payer: db.prepare<[string, string], { balance: string }>(
        "SELECT balance FROM payers WHERE payer = ? AND currency = ?",
      ),
      setPayer: db.prepare(
        "INSERT INTO payers (payer, currency, balance) VALUES (?, ?, ?) " +
          "ON CONFLICT (payer, currency) DO UPDATE SET balance = excluded.balance",
      ),
      merchant: db.prepare<[string, string], { balance: string }>(
        "SELECT balance FROM merchants WHERE pseudonym = ? AND currency = ?",
      ),
      setMerchant: db.prepare(
        "INSERT INTO merchants (pseudonym, currency, balance) VALUES (?, ?, ?) " +
          "ON CONFLICT (pseudonym, currency) DO UPDATE SET balance = excluded.balance",
      ),
      settled: db.prepare<[string], { receipt: Buffer }>("SELECT receipt FROM settlements WHERE intent = ?"),
      settle: db.prepare(
        "INSERT INTO settlements (intent, payer, merchant, currency, amount, settled_at, receipt) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      count: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM settlements"),
      settlement: db.prepare<
        [string],
        { payer: string; merchant: string; currency: string; amount: string; receipt: Buffer }
      >("SELECT payer, merchant, currency, amount, receipt FROM settlements WHERE intent = ?"),
      refunded: db.prepare<[string], { intent: string }>("SELECT intent FROM refunds WHERE intent = ?"),
      refund: db.prepare("INSERT INTO refunds (intent, amount, refunded_at, revocation) VALUES (?, ?, ?, ?)"),
      revocations: db.prepare<[], { revocation: Buffer }>(
        "SELECT revocation FROM refunds ORDER BY refunded_at, intent",
      ),
      grantSpent: db.prepare<[string], { spent: string }>("SELECT spent FROM grants WHERE grant_id = ?"),
      setGrantSpent: db.prepare(
        "INSERT INTO grants (grant_id, cap, spent) VALUES (?, ?, ?) " +
          "ON CONFLICT (grant_id) DO UPDATE SET spent = excluded.spent",
      ),
      chargeGrant: db.prepare("INSERT INTO settlement_grants (intent, grant_id) VALUES (?, ?)"),
      grantsOf: db.prepare<[string], { grant_id: string; spent: string; cap: string }>(
        "SELECT g.grant_id, g.spent, g.cap FROM settlement_grants s JOIN grants g USING (grant_id) " +
          "WHERE s.intent = ?",
      ),
    };
  }

  /** A value kept across restarts (the receipt key's seed), set once. */
  meta(key: string, initial: () => string): string {
    this.statements.setMeta.run(key, initial());
    return (this.statements.getMeta.get(key) as { value: string }).value;
  }

  /** Open a payer account with `balance` of `currency`, unless it already exists. */
  openAccount(payer: string, currency: string, balance: bigint): void {
    if (this.statements.payer.get(payer, currency) === undefined) {
      this.statements.setPayer.run(payer, currency, balance.toString());
    }
  }

  /** Add `amount` of `currency` to a payer's account (opened at 0 first when new); answers the balance. */
  credit(payer: string, currency: string, amount: bigint): bigint {
    return this.db
      .transaction(() => {
        const balance = (this.payerBalance(payer, currency) ?? 0n) + amount;
        this.statements.setPayer.run(payer, currency, balance.toString());
        return balance;
      })
      .immediate();
  }

  payerBalance(payer: string, currency: string): bigint | undefined {
    const row = this.statements.payer.get(payer, currency);
    return row === undefined ? undefined : BigInt(row.balance);
  }

  merchantBalance(pseudonym: string, currency: string): bigint {
    return BigInt(this.statements.merchant.get(pseudonym, currency)?.balance ?? "0");
  }

  settlements(): number {
    return (this.statements.count.get() as { n: number }).n;
  }

  /** The receipt issued for `intent` (hex SHA-256 of the payment_intent bytes), if it settled. */
  receiptOf(intent: string): Uint8Array | undefined {
    const row = this.statements.settled.get(intent);
    return row === undefined ? undefined : new Uint8Array(row.receipt);
  }

  /** What the grant `id` has spent over all settlements (refunds given back). */
  grantSpent(id: string): bigint {
    return BigInt(this.statements.grantSpent.get(id)?.spent ?? "0");
  }

  /** Debit the payer, credit the merchant and record the receipt, all or nothing. */
  transfer(transfer: Transfer, receipt: () => Uint8Array): TransferOutcome {
    return this.db
      .transaction((): TransferOutcome => {
        if (this.statements.settled.get(transfer.intent) !== undefined) {
          return { ok: false, reason: "intent_already_settled" };
        }
        const balance = this.payerBalance(transfer.payer, transfer.currency);
        if (balance === undefined) return { ok: false, reason: "unknown_payer" };
        // One row per grant, even if a chain named it twice: a payment spends a grant once.
        const grants = new Map((transfer.grants ?? []).map((grant) => [grant.id, grant.cap]));
        for (const [id, cap] of grants) {
          const spent = this.grantSpent(id);
          if (spent + transfer.amount > cap) {
            return { ok: false, reason: "delegation_cap_exceeded", grant: id, spent, cap };
          }
        }
        if (balance < transfer.amount) return { ok: false, reason: "insufficient_funds" };
        const signed = receipt();
        for (const [id, cap] of grants) {
          this.statements.setGrantSpent.run(
            id,
            cap.toString(),
            (this.grantSpent(id) + transfer.amount).toString(),
          );
          this.statements.chargeGrant.run(transfer.intent, id);
        }
        this.statements.setPayer.run(
          transfer.payer,
          transfer.currency,
          (balance - transfer.amount).toString(),
        );
        const credited = this.merchantBalance(transfer.merchant, transfer.currency) + transfer.amount;
        this.statements.setMerchant.run(transfer.merchant, transfer.currency, credited.toString());
        this.statements.settle.run(
          transfer.intent,
          transfer.payer,
          transfer.merchant,
          transfer.currency,
          transfer.amount.toString(),
          transfer.settledAt,
          Buffer.from(signed),
        );
        return { ok: true, receipt: signed };
      })
      .immediate();
  }

  /**
   * Refund a settlement once: credit the payer back, debit the merchant and record the revocation,
   * all or nothing. The receipt must be the settlement's own; a second refund of it is refused.
   */
  refund(refund: Refund, revocation: () => Uint8Array): RefundOutcome {
    return this.db
      .transaction((): RefundOutcome => {
        const settled = this.statements.settlement.get(refund.intent);
        if (settled === undefined || !Buffer.from(refund.receipt).equals(settled.receipt)) {
          return { ok: false, reason: "unknown_receipt" };
        }
        if (this.statements.refunded.get(refund.intent) !== undefined) {
          return { ok: false, reason: "already_refunded" };
        }
        if (refund.amount > BigInt(settled.amount)) return { ok: false, reason: "refund_exceeds_payment" };
        const signed = revocation();
        const payerBalance = this.payerBalance(settled.payer, settled.currency) ?? 0n;
        this.statements.setPayer.run(
          settled.payer,
          settled.currency,
          (payerBalance + refund.amount).toString(),
        );
        const merchantBalance = this.merchantBalance(settled.merchant, settled.currency) - refund.amount;
        this.statements.setMerchant.run(settled.merchant, settled.currency, merchantBalance.toString());
        // The refunded units go back to every grant the settlement spent under (never below zero).
        for (const grant of this.statements.grantsOf.all(refund.intent)) {
          const spent = BigInt(grant.spent) - refund.amount;
          this.statements.setGrantSpent.run(grant.grant_id, grant.cap, (spent < 0n ? 0n : spent).toString());
        }
        this.statements.refund.run(
          refund.intent,
          refund.amount.toString(),
          refund.refundedAt,
          Buffer.from(signed),
        );
        return { ok: true, revocation: signed };
      })
      .immediate();
  }

  /** Every revocation signed so far (encoded SignedClaims), oldest first. */
  revocations(): Uint8Array[] {
    return this.statements.revocations.all().map((row) => new Uint8Array(row.revocation));
  }

  close(): void {
    this.db.close();
  }
}
