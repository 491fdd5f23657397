import type Database from "better-sqlite3";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";
import { toFelt } from "../../recognition/toFelt.js";

// One registry contract per recognized resource: a payer is recorded in the contract of what it paid for.
// (The table `recorded` of earlier versions had no contract: its rows belong to the default registry.)
const SCHEMA = `
CREATE TABLE IF NOT EXISTS recordings (contract TEXT NOT NULL, payer TEXT NOT NULL, block INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL, PRIMARY KEY (contract, payer));
CREATE TABLE IF NOT EXISTS nonces (account TEXT PRIMARY KEY, nonce INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (hash TEXT PRIMARY KEY, sender TEXT NOT NULL, nonce INTEGER NOT NULL,
  block INTEGER NOT NULL, received_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS record_calls (hash TEXT NOT NULL, contract TEXT NOT NULL, payer TEXT NOT NULL);
`;

/** One accepted invoke transaction: its hash, the block that holds it, and the payers its calls recorded. */
export interface StandInTransaction {
  hash: string;
  sender: string;
  nonce: number;
  block: number;
  recordCalls: Array<{ contract: string; payer: string }>;
}

/** One recorded payer: the registry contract, the payer's felt, the block that recorded it, when (epoch ms). */
export interface RecordedPayer {
  contract: string;
  payer: string;
  block: number;
  recordedAt: number;
}

/**
 * The local layer-2 stand-in's state in SQLite: per registry contract, the payers recorded as having
 * paid for its resource, each recording in its own block (block 0 is empty), so a read at an older block
 * still answers as the chain did then. A payer is recorded once per contract; again changes nothing.
 */
export class RecognitionRegistry {
  private readonly db: Database.Database;
  private readonly statements;

  /** `defaultContract` (a minimal felt) takes the rows of the older, contract-less table. */
  constructor(file: string, defaultContract: string) {
    this.db = openDurableDatabase(file, SCHEMA, "the local layer-2 stand-in");
    const db = this.db;
    const legacy = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'recorded'",
      )
      .get();
    if (legacy !== undefined) {
      db.transaction(() => {
        db.prepare(
          "INSERT OR IGNORE INTO recordings (contract, payer, block, recorded_at) SELECT ?, payer, block, recorded_at FROM recorded",
        ).run(defaultContract);
        db.exec("DROP TABLE recorded");
      })();
    }
    this.statements = {
      head: db.prepare<[], { head: number | null }>(
        "SELECT MAX(head) AS head FROM (SELECT MAX(block) AS head FROM recordings UNION ALL SELECT MAX(block) FROM transactions)",
      ),
      nonce: db.prepare<[string], { nonce: number }>("SELECT nonce FROM nonces WHERE account = ?"),
      setNonce: db.prepare(
        "INSERT INTO nonces (account, nonce) VALUES (?, ?) ON CONFLICT (account) DO UPDATE SET nonce = excluded.nonce",
      ),
      insertTransaction: db.prepare(
        "INSERT INTO transactions (hash, sender, nonce, block, received_at) VALUES (?, ?, ?, ?, ?)",
      ),
      findTransaction: db.prepare<[string], { hash: string; sender: string; nonce: number; block: number }>(
        "SELECT hash, sender, nonce, block FROM transactions WHERE hash = ?",
      ),
      insertRecordCall: db.prepare("INSERT INTO record_calls (hash, contract, payer) VALUES (?, ?, ?)"),
      recordCallsOf: db.prepare<[string], { contract: string; payer: string }>(
        "SELECT contract, payer FROM record_calls WHERE hash = ? ORDER BY rowid",
      ),
      allRecordCalls: db.prepare<[], { hash: string; contract: string; payer: string }>(
        "SELECT hash, contract, payer FROM record_calls ORDER BY rowid",
      ),
      find: db.prepare<[string, string], { block: number }>(
        "SELECT block FROM recordings WHERE contract = ? AND payer = ?",
      ),
      insert: db.prepare(
        "INSERT OR IGNORE INTO recordings (contract, payer, block, recorded_at) VALUES (?, ?, ?, ?)",
      ),
      all: db.prepare<[], { contract: string; payer: string; block: number; recorded_at: number }>(
        "SELECT contract, payer, block, recorded_at FROM recordings ORDER BY block",
      ),
    };
  }

  /** The latest block's number: how many payers were recorded. */
  blockNumber(): number {
    return this.statements.head.get()?.head ?? 0;
  }

  /**
   * Records `payer` (a felt: an EVM address or a layer-2 account, any case) in registry `contract` (a
   * felt), in a new block; resolves the block that holds it.
   */
  record(contract: string, payer: string, now = Date.now()): number {
    const key = [toFelt(contract), toFelt(payer)] as const;
    return this.db.transaction(() => {
      const known = this.statements.find.get(...key);
      if (known !== undefined) return known.block;
      const block = this.blockNumber() + 1;
      this.statements.insert.run(...key, block, now);
      return block;
    })();
  }

  /** The next nonce `account` (a minimal felt) must use: how many of its transactions were accepted. */
  nonceOf(account: string): number {
    return this.statements.nonce.get(account)?.nonce ?? 0;
  }

  /**
   * Accepts one invoke transaction of `sender` at `nonce` (the caller checked the nonce and signature):
   * a new block holds it and records each payer of `recordCalls` (a payer already recorded stays as it
   * was, but the call is kept, so a double write shows). Resolves the block.
   */
  acceptInvoke(
    hash: string,
    sender: string,
    nonce: number,
    recordCalls: ReadonlyArray<{ contract: string; payer: string }>,
    now = Date.now(),
  ): number {
    return this.db.transaction(() => {
      const block = this.blockNumber() + 1;
      this.statements.insertTransaction.run(hash, sender, nonce, block, now);
      this.statements.setNonce.run(sender, nonce + 1);
      for (const { contract, payer } of recordCalls) {
        const key = [toFelt(contract), toFelt(payer)] as const;
        this.statements.insertRecordCall.run(hash, ...key);
        if (this.statements.find.get(...key) === undefined) this.statements.insert.run(...key, block, now);
      }
      return block;
    })();
  }

  transaction(hash: string): StandInTransaction | undefined {
    const row = this.statements.findTransaction.get(hash);
    if (row === undefined) return undefined;
    return { ...row, recordCalls: this.statements.recordCallsOf.all(hash) };
  }

  /** Every record call executed, in order, with its transaction: what shows a payer written twice. */
  recordCalls(): Array<{ hash: string; contract: string; payer: string }> {
    return this.statements.allRecordCalls.all();
  }

  /** Whether the payer `felt` was recorded in registry `contract` at or before `block`. */
  isRecorded(contract: string, felt: string, block: number): boolean {
    const found = this.statements.find.get(contract, felt);
    return found !== undefined && found.block <= block;
  }

  recorded(): RecordedPayer[] {
    return this.statements.all.all().map((row) => ({
      contract: row.contract,
      payer: row.payer,
      block: row.block,
      recordedAt: row.recorded_at,
    }));
  }

  close(): void {
    this.db.close();
  }
}
