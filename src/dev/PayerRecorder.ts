/** How long after a settlement the local stack records the payer (the seed: "repeat it later"). */
export const DEFAULT_RECORD_DELAY_MS = 5_000;

export interface PayerRecorderOptions {
  /** Writes one EVM address to the layer-2 registry (the stand-in's `record`). */
  record: (address: string) => unknown;
  /** Delay between a settlement and its recording, in ms (default {@link DEFAULT_RECORD_DELAY_MS}). */
  delayMs?: number;
  log?: (line: string) => void;
}

/**
 * Records payers in the local layer-2 registry a little after their payment settled, as a receipt
 * reaches a real chain some time after the payment: until then `est_ouverte` still answers `0x0`.
 * The local stack's job only: in production the facilitator or the resource owner writes the chain.
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

  /** Records `address` after the delay; a recorder that was stopped records nothing. */
  schedule(address: string): void {
    if (this.stopped) return;
    this.options.log?.(
      `layer-2: ${address} will be recorded in ${this.delayMs} ms (est_ouverte says 0x0 until then)`,
    );
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        this.options.record(address);
      } catch (error) {
        this.options.log?.(`layer-2: recording ${address} failed: ${(error as Error).message}`);
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
