import { StarknetRpcFailureError } from "../../starknet/StarknetRpcFailureError.js";
import { type InFlightBatch, type PayerToRecord, type RecordingQueue } from "./RecordingQueue.js";
import type { StarknetInvoker } from "./StarknetInvoker.js";

/** What the recorder did, for metrics and logs. */
export type RecorderEvent =
  | { kind: "queued"; recording: PayerToRecord }
  | { kind: "sent"; hash: string; nonce: string; count: number; resent: boolean }
  | { kind: "recorded"; hash?: string; count: number; alreadyOnChain: boolean }
  | { kind: "requeued"; count: number; why: string }
  | { kind: "failed"; reason: string; message: string };

export interface PayerRecorderSettings {
  /** The registry contracts' recording entry point, `(payer: felt252)`. */
  entryPoint: string;
  /** Most recordings in one transaction (default 20). */
  batchSize?: number;
  /** How often the queue is looked at when nothing failed, in ms (default 1000). */
  intervalMs?: number;
  /** First delay after a failure, doubled each failure in a row up to `maxBackoffMs` (default 1000 / 60000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Failing this long makes {@link StarknetPayerRecorder.health} say so (default 60000 ms). */
  unhealthyAfterMs?: number;
}

export interface PayerRecorderOptions extends PayerRecorderSettings {
  queue: RecordingQueue;
  invoker: StarknetInvoker;
  /** Names this worker in the queue's lease (several gateways may share a Redis queue). */
  owner?: string;
  onEvent?: (event: RecorderEvent) => void;
  now?: () => number;
}

/** The recorder's health: ok, or why not (a reason word) since when. */
export interface RecorderHealth {
  ok: boolean;
  reason?: string;
  failingSince?: number;
}

const TRANSPORT_KINDS = new Set(["unreachable", "timeout", "http", "not_json"]);

/** A failure as a reason word: the RPC's kind, or its JSON-RPC code for an answered error. */
function reasonOf(error: unknown): string {
  if (error instanceof StarknetRpcFailureError) {
    return error.kind === "rpc" ? `rpc_error_${error.details.code}` : `rpc_${error.kind}`;
  }
  return "error";
}

/**
 * The production writer of recognition: each queued payer is written to its resource's registry contract
 * (`entryPoint(payer)`) by invoke transactions from one account. Nothing is lost: the queue is durable and
 * the batch in flight is written before it is sent. Nothing is written twice: a recording is queued once;
 * a payer `est_ouverte` already knows is done without a transaction; and a batch is only ever sent again
 * at its own nonce (the same transaction, so the chain takes at most one), going back to the queue only
 * once that nonce was used by something else and the payer is still not recorded, or it reverted.
 */
export class StarknetPayerRecorder {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;
  private failingSince: number | undefined;
  private lastReason: string | undefined;
  private readonly now: () => number;
  private readonly owner: string;
  private readonly settings: Required<PayerRecorderSettings>;

  constructor(private readonly options: PayerRecorderOptions) {
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? `recorder-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    this.settings = {
      entryPoint: options.entryPoint,
      batchSize: options.batchSize ?? 20,
      intervalMs: options.intervalMs ?? 1000,
      backoffMs: options.backoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      unhealthyAfterMs: options.unhealthyAfterMs ?? 60_000,
    };
  }

  /** Queues a payer for its registry; false when it was queued (or recorded) before. Wakes the worker. */
  async record(recording: PayerToRecord): Promise<boolean> {
    const fresh = await this.options.queue.enqueue(recording, this.now());
    if (fresh) {
      this.options.onEvent?.({ kind: "queued", recording });
      if (!this.stopped && this.failures === 0) this.wake(0);
    }
    return fresh;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.wake(0);
  }

  /** Stops the worker after the cycle in progress (what is queued stays queued). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  health(): RecorderHealth {
    if (this.failingSince === undefined || this.now() - this.failingSince < this.settings.unhealthyAfterMs) {
      return { ok: true };
    }
    return { ok: false, reason: this.lastReason ?? "error", failingSince: this.failingSince };
  }

  /** One pass: settle the batch in flight, or send the next one. Exposed for tests and `drain`. */
  async cycle(): Promise<void> {
    const { queue } = this.options;
    if (!(await queue.lease(this.owner, this.settings.intervalMs * 10 + 30_000))) return;
    const batch = await queue.inFlight();
    if (batch !== undefined) return this.settle(batch);
    const due = await queue.due(this.now(), this.settings.batchSize);
    if (due.length === 0) return;
    const known: string[] = [];
    const fresh = [];
    for (const recording of due) {
      if (await this.options.invoker.isRecorded(recording.contract, recording.payer))
        known.push(recording.key);
      else fresh.push(recording);
    }
    if (known.length > 0) {
      await queue.markDone(known, this.now());
      this.options.onEvent?.({ kind: "recorded", count: known.length, alreadyOnChain: true });
    }
    if (fresh.length === 0) return;
    const nonce = await this.options.invoker.nonce();
    const signed = await this.options.invoker.sign(
      fresh.map(({ contract, payer }) => ({
        contract,
        entrypoint: this.settings.entryPoint,
        calldata: [payer],
      })),
      nonce,
    );
    const transaction = JSON.stringify(signed.transaction);
    await queue.markSent(
      { hash: signed.hash, nonce, transaction, sentAt: this.now() },
      fresh.map((r) => r.key),
    );
    await this.submit(
      { hash: signed.hash, nonce, transaction, sentAt: this.now(), recordings: fresh },
      false,
    );
  }

  /** Runs cycles until nothing is queued or in flight (or `timeoutMs` passes); for tests and shutdown. */
  async drain(timeoutMs = 30_000): Promise<void> {
    const until = this.now() + timeoutMs;
    for (;;) {
      const stats = await this.options.queue.stats();
      if (stats.pending === 0 && stats.inFlight === 0) return;
      if (this.now() > until)
        throw new Error(`the recorder did not drain in ${timeoutMs} ms: ${JSON.stringify(stats)}`);
      try {
        await this.cycle();
      } catch (error) {
        this.fail(error);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private async settle(batch: InFlightBatch): Promise<void> {
    const { queue, invoker } = this.options;
    const keys = batch.recordings.map((r) => r.key);
    const { state, reason } = await invoker.state(batch.hash);
    if (state === "pending") return;
    if (state === "succeeded") {
      await queue.markDone(keys, this.now());
      this.options.onEvent?.({
        kind: "recorded",
        hash: batch.hash,
        count: keys.length,
        alreadyOnChain: false,
      });
      return;
    }
    if (state === "reverted") {
      await queue.reschedule(keys, this.now() + this.settings.backoffMs, `reverted: ${reason ?? ""}`);
      this.options.onEvent?.({ kind: "requeued", count: keys.length, why: "reverted" });
      return;
    }
    // Not found: sent again at its own nonce while that nonce is free; once something else used it,
    // each payer is looked up and requeued only if it is still not recorded.
    if (BigInt(await invoker.nonce()) <= BigInt(batch.nonce)) return this.submit(batch, true);
    const done: string[] = [];
    const again: string[] = [];
    for (const recording of batch.recordings) {
      ((await invoker.isRecorded(recording.contract, recording.payer)) ? done : again).push(recording.key);
    }
    if (done.length > 0) await queue.markDone(done, this.now());
    if (again.length > 0) {
      await queue.reschedule(again, this.now(), "its nonce was used by another transaction");
      this.options.onEvent?.({ kind: "requeued", count: again.length, why: "nonce_used" });
    }
  }

  /** Sends the batch's transaction; a failure that leaves its fate unknown leaves it in flight. */
  private async submit(batch: InFlightBatch, resent: boolean): Promise<void> {
    try {
      await this.options.invoker.send(JSON.parse(batch.transaction) as Record<string, unknown>);
    } catch (error) {
      const code = error instanceof StarknetRpcFailureError ? error.details.code : undefined;
      // Already in the mempool (59), or its nonce now taken (52): settled by the next cycle.
      if (code === 59 || code === 52) return;
      if (error instanceof StarknetRpcFailureError && TRANSPORT_KINDS.has(error.kind)) throw error;
      await this.options.queue.reschedule(
        batch.recordings.map((r) => r.key),
        this.now() + this.backoff(),
        (error as Error).message,
      );
      throw error;
    }
    this.options.onEvent?.({
      kind: "sent",
      hash: batch.hash,
      nonce: batch.nonce,
      count: batch.recordings.length,
      resent,
    });
  }

  private wake(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (this.running !== undefined) return this.wake(this.settings.intervalMs);
      this.running = this.cycle()
        .then(() => this.succeed())
        .catch((error: unknown) => this.fail(error))
        .finally(() => {
          this.running = undefined;
          this.wake(this.failures === 0 ? this.settings.intervalMs : this.backoff());
        });
    }, delayMs);
    this.timer.unref();
  }

  private succeed(): void {
    this.failures = 0;
    this.failingSince = undefined;
  }

  private fail(error: unknown): void {
    this.failures++;
    this.failingSince ??= this.now();
    this.lastReason = reasonOf(error);
    this.options.onEvent?.({ kind: "failed", reason: this.lastReason, message: (error as Error).message });
  }

  private backoff(): number {
    return Math.min(
      this.settings.maxBackoffMs,
      this.settings.backoffMs * 2 ** Math.max(0, this.failures - 1),
    );
  }
}
