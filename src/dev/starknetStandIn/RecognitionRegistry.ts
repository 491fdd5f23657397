import type Database from "better-sqlite3";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";
import { evmAddressToFelt } from "../../recognition/toFelt.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS recorded (payer TEXT PRIMARY KEY, block INTEGER NOT NULL, recorded_at INTEGER NOT NULL);
`;

/** One recorded payer: its felt, the block that recorded it, when (epoch ms). */
export interface RecordedPayer {
  payer: string;
  block: number;
  recordedAt: number;
}

/**
 * The local layer-2 stand-in's state in SQLite: the payers recorded as having paid, each in its own
 * block (block 0 is empty), so a read at an older block still answers as the chain did then. A payer
 * is recorded once; recording it again changes nothing.
 */
export class RecognitionRegistry {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(file: string) {
    this.db = openDurableDatabase(file, SCHEMA, "the local layer-2 stand-in");
    const db = this.db;
    this.statements = {
      head: db.prepare<[], { head: number | null }>("SELECT MAX(block) AS head FROM recorded"),
      find: db.prepare<[string], { block: number }>("SELECT block FROM recorded WHERE payer = ?"),
      insert: db.prepare("INSERT OR IGNORE INTO recorded (payer, block, recorded_at) VALUES (?, ?, ?)"),
      all: db.prepare<[], { payer: string; block: number; recorded_at: number }>(
        "SELECT payer, block, recorded_at FROM recorded ORDER BY block",
      ),
    };
  }

  /** The latest block's number: how many payers were recorded. */
  blockNumber(): number {
    return this.statements.head.get()?.head ?? 0;
  }

  /** Records `address` (an EVM address, any case) in a new block; resolves the block that holds it. */
  record(address: string, now = Date.now()): number {
    const payer = evmAddressToFelt(address);
    return this.db.transaction(() => {
      const known = this.statements.find.get(payer);
      if (known !== undefined) return known.block;
      const block = this.blockNumber() + 1;
      this.statements.insert.run(payer, block, now);
      return block;
    })();
  }

  /** Whether the payer `felt` was recorded at or before `block`. */
  isRecorded(felt: string, block: number): boolean {
    const found = this.statements.find.get(felt);
    return found !== undefined && found.block <= block;
  }

  recorded(): RecordedPayer[] {
    return this.statements.all
      .all()
      .map((row) => ({ payer: row.payer, block: row.block, recordedAt: row.recorded_at }));
  }

  close(): void {
    this.db.close();
  }
}
