/** How a bench run is sized; `--quick` shrinks it. */
export interface BenchSettings {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  /** Distinct pre-signed payments per paid contender. */
  payments: number;
  /** A contender to run under `node --cpu-prof`. */
  profile?: string;
  log(line: string): void;
}

/** One target of the issue, measured. */
export interface TargetResult {
  text: string;
  measured: string;
  met: boolean;
}

/** One scenario's part of RESULTS.md. */
export interface Section {
  id: string;
  title: string;
  /** Markdown lines (usually a table). */
  lines: string[];
  targets: TargetResult[];
}
