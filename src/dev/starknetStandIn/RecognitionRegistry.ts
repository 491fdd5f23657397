import type Database from "better-sqlite3";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";
import { toFelt } from "../../recognition/toFelt.js";

// One registry contract per recognized resource: a payer is recorded in the contract of what it paid for.
// (The table `recorded` of earlier versions had no contract: its rows belong to the default registry.)
const SCHEMA = `
CREATE TABLE IF NOT EXISTS recordings (contract TEXT NOT NULL, payer TEXT NOT NULL, block INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL, PRIMARY KEY (contract, payer));
`;

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
      head: db.prepare<[], { head: number | null }>("SELECT MAX(block) AS head FROM recordings"),
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
