import type Database from "better-sqlite3";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";
import {
  recordingKey,
  type InFlightBatch,
  type PayerToRecord,
  type QueuedRecording,
  type RecordingQueue,
  type RecordingQueueStats,
} from "./RecordingQueue.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS recordings (key TEXT PRIMARY KEY, contract TEXT NOT NULL, payer TEXT NOT NULL,
  state TEXT NOT NULL, attempts INTEGER NOT NULL, due_at INTEGER NOT NULL, queued_at INTEGER NOT NULL,
  last_error TEXT);
CREATE INDEX IF NOT EXISTS recordings_due ON recordings (state, due_at);
CREATE TABLE IF NOT EXISTS batch (id INTEGER PRIMARY KEY CHECK (id = 1), hash TEXT NOT NULL, nonce TEXT NOT NULL,
  transaction_json TEXT NOT NULL, sent_at INTEGER NOT NULL);
`;

interface Row {
  key: string;
  contract: string;
  payer: string;
  attempts: number;
  due_at: number;
}

const toQueued = (row: Row): QueuedRecording => ({
  key: row.key,
  contract: row.contract,
  payer: row.payer,
  attempts: row.attempts,
  dueAt: row.due_at,
});

/** The recorder's queue in a SQLite file (WAL, synchronous FULL): what one process records survives `kill -9`. */
export class SqliteRecordingQueue implements RecordingQueue {
  private readonly db: Database.Database;
  private readonly sql;

  constructor(file: string) {
    this.db = openDurableDatabase(file, SCHEMA, "the payer recorder's queue");
    const db = this.db;
    this.sql = {
      insert: db.prepare(
        "INSERT OR IGNORE INTO recordings (key, contract, payer, state, attempts, due_at, queued_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
      ),
      due: db.prepare<[number, number], Row>(
        "SELECT key, contract, payer, attempts, due_at FROM recordings WHERE state = 'pending' AND due_at <= ? ORDER BY due_at, rowid LIMIT ?",
      ),
      batch: db.prepare<[], { hash: string; nonce: string; transaction_json: string; sent_at: number }>(
        "SELECT hash, nonce, transaction_json, sent_at FROM batch WHERE id = 1",
      ),
      sent: db.prepare<[], Row>(
        "SELECT key, contract, payer, attempts, due_at FROM recordings WHERE state = 'sent'",
      ),
      setBatch: db.prepare(
        "INSERT OR REPLACE INTO batch (id, hash, nonce, transaction_json, sent_at) VALUES (1, ?, ?, ?, ?)",
      ),
      endBatch: db.prepare("DELETE FROM batch"),
      markSent: db.prepare("UPDATE recordings SET state = 'sent' WHERE key = ? AND state = 'pending'"),
      markDone: db.prepare("UPDATE recordings SET state = 'done', due_at = ? WHERE key = ?"),
      reschedule: db.prepare(
        "UPDATE recordings SET state = 'pending', attempts = attempts + 1, due_at = ?, last_error = ? WHERE key = ? AND state != 'done'",
      ),
      counts: db.prepare<[], { state: string; n: number; oldest: number }>(
        "SELECT state, COUNT(*) AS n, MIN(queued_at) AS oldest FROM recordings GROUP BY state",
      ),
    };
  }

  async enqueue(recording: PayerToRecord, now: number): Promise<boolean> {
    return (
      this.sql.insert.run(recordingKey(recording), recording.contract, recording.payer, now, now).changes ===
      1
    );
  }

  async due(now: number, limit: number): Promise<QueuedRecording[]> {
    return this.sql.due.all(now, limit).map(toQueued);
  }

  async inFlight(): Promise<InFlightBatch | undefined> {
    const batch = this.sql.batch.get();
    if (batch === undefined) return undefined;
    return {
      hash: batch.hash,
      nonce: batch.nonce,
      transaction: batch.transaction_json,
      sentAt: batch.sent_at,
      recordings: this.sql.sent.all().map(toQueued),
    };
  }

  async markSent(batch: Omit<InFlightBatch, "recordings">, keys: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      this.sql.setBatch.run(batch.hash, batch.nonce, batch.transaction, batch.sentAt);
      for (const key of keys) this.sql.markSent.run(key);
    })();
  }

  async markDone(keys: readonly string[], now: number): Promise<void> {
    this.db.transaction(() => {
      for (const key of keys) this.sql.markDone.run(now, key);
      if (this.sql.sent.all().length === 0) this.sql.endBatch.run();
    })();
  }

  async reschedule(keys: readonly string[], dueAt: number, error: string): Promise<void> {
    this.db.transaction(() => {
      for (const key of keys) this.sql.reschedule.run(dueAt, error.slice(0, 500), key);
      if (this.sql.sent.all().length === 0) this.sql.endBatch.run();
    })();
  }

  async lease(): Promise<boolean> {
    return true;
  }

  async stats(): Promise<RecordingQueueStats> {
    const stats: RecordingQueueStats = { pending: 0, inFlight: 0, recorded: 0 };
    for (const { state, n, oldest } of this.sql.counts.all()) {
      if (state === "pending") Object.assign(stats, { pending: n, oldestPendingSince: oldest });
      else if (state === "sent") stats.inFlight = n;
      else if (state === "done") stats.recorded = n;
    }
    return stats;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
