/** One payer to record in one registry contract (both minimal felts): the queue's unit and its key. */
export interface PayerToRecord {
  contract: string;
  payer: string;
}

/** A recording waiting in the queue: its key (`contract:payer`), how often it was tried, when it is due. */
export interface QueuedRecording extends PayerToRecord {
  key: string;
  attempts: number;
  dueAt: number;
}

/**
 * The one invoke transaction in flight: its hash, the nonce it uses, the signed transaction as sent (to
 * send it again, byte for byte, when it never arrived), when, and the recordings it carries.
 */
export interface InFlightBatch {
  hash: string;
  nonce: string;
  transaction: string;
  sentAt: number;
  recordings: QueuedRecording[];
}

export interface RecordingQueueStats {
  pending: number;
  inFlight: number;
  recorded: number;
  /** When the oldest pending recording was queued (epoch ms); undefined when none is pending. */
  oldestPendingSince?: number;
}

/**
 * The payer recorder's durable queue: SQLite in one process, Redis when gateways share it. A recording is
 * queued once per key, ever (a second enqueue of a pending, in-flight or done one is a no-op): that is
 * the de-duplication. A recording leaves `pending` for the one batch in flight, and goes back to
 * `pending` only when its transaction is known not to land; so no recording is ever in two transactions
 * that could both land.
 */
export interface RecordingQueue {
  /** Queues the recording unless its key is known; true when it was new. */
  enqueue(recording: PayerToRecord, now: number): Promise<boolean>;
  /** Up to `limit` pending recordings due at `now`, oldest due first. */
  due(now: number, limit: number): Promise<QueuedRecording[]>;
  inFlight(): Promise<InFlightBatch | undefined>;
  /** Moves `keys` from pending into the batch in flight (written before the transaction is sent). */
  markSent(batch: Omit<InFlightBatch, "recordings">, keys: readonly string[]): Promise<void>;
  /** The recordings are on chain: done, and the batch (if theirs) ended. */
  markDone(keys: readonly string[], now: number): Promise<void>;
  /** Back to pending, due at `dueAt`, one attempt more; the batch (if theirs) ended. */
  reschedule(keys: readonly string[], dueAt: number, error: string): Promise<void>;
  /**
   * Whether this worker (`owner`) may write for `leaseMs`: one writer at a time per account, so nonces
   * never race (always true for a queue only one process opens).
   */
  lease(owner: string, leaseMs: number): Promise<boolean>;
  stats(): Promise<RecordingQueueStats>;
  close(): Promise<void>;
}

export const recordingKey = ({ contract, payer }: PayerToRecord): string => `${contract}:${payer}`;
