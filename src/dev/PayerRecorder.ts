/** How long after a settlement the local stack records the payer (the seed: "repeat it later"). */
export const DEFAULT_RECORD_DELAY_MS = 5_000;

/** One payer to write: its felt (an EVM address or a layer-2 account) and the registry contract of its resource. */
export interface PayerRecording {
  payer: string;
  contract: string;
}

export interface PayerRecorderOptions {
  /** Writes one payer to its resource's layer-2 registry (the stand-in's `record`). */
  record: (recording: PayerRecording) => unknown;
  /** Delay between a settlement and its recording, in ms (default {@link DEFAULT_RECORD_DELAY_MS}). */
  delayMs?: number;
  log?: (line: string) => void;
}

/**
 * Records payers in the local layer-2 registry a little after their payment settled, as a receipt
 * reaches a real chain some time after the payment: until then `est_ouverte` still answers `0x0`.
 * The local stack's job only: in production the facilitator or the resource owner writes the chain.
 * It records what it is handed (npm start hands it the gateway's paid events that qualify:
 * src/paywall/flow/recordingTargets.ts); it never decides who paid.
 */
export class PayerRecorder {
  readonly delayMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Set<() => void>();
  private stopped = false;

  constructor(private readonly options: PayerRecorderOptions) {
    const delayMs = options.delayMs ?? DEFAULT_RECORD_DELAY_MS;
    if (!Number.isSafeInteger(delayMs) || delayMs < 0) {
      throw new RangeError(`the record delay must be a whole number of ms >= 0, got ${delayMs}`);
    }
    this.delayMs = delayMs;
  }

  /** Records the payer after the delay; a recorder that was stopped records nothing. */
  schedule(recording: PayerRecording): void {
    if (this.stopped) return;
    const { payer, contract } = recording;
    this.options.log?.(
      `layer-2: ${payer} will be recorded in ${contract} in ${this.delayMs} ms (est_ouverte says 0x0 until then)`,
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        this.options.record(recording);
      } catch (error) {
        this.options.log?.(`layer-2: recording ${payer} failed: ${(error as Error).message}`);
      }
      if (this.timers.size === 0) for (const wake of this.waiters) wake();
    }, this.delayMs);
    this.timers.add(timer);
  }

  /** Recordings scheduled and not yet written. */
  get pending(): number {
    return this.timers.size;
  }

  /** Resolves once no recording is pending. */
  idle(): Promise<void> {
    if (this.timers.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
    });
  }

  /** Drops the pending recordings (the stack is stopping: nothing is written after). */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.waiters) wake();
  }
}
