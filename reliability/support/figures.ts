import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where suites, soak and load test leave their figures (git-ignored); `npm run reliability-report` reads them. */
export const RESULTS_DIR = fileURLToPath(new URL("../results/", import.meta.url));
/** Where the scripts' short runs (`--short`, CI) leave theirs: apart, so the report never takes them for full runs. */
export const SHORT_RESULTS_DIR = `${RESULTS_DIR}short/`;

/** What a results file holds: the figures, stamped with their name, the time and the Node version. */
export interface StampedFigures extends Record<string, unknown> {
  name: string;
  at: string;
  node: string;
}

export function stampFigures(name: string, figures: Record<string, unknown>): StampedFigures {
  return { name, at: new Date().toISOString(), node: process.version, ...figures };
}

/** Writes `<name>.json` under {@link RESULTS_DIR}, stamped; returns its path. */
export function writeFigures(name: string, figures: Record<string, unknown>): string {
  return writeStamped(stampFigures(name, figures));
}

/** Writes stamped figures as `<name>.json` under {@link RESULTS_DIR} (or {@link SHORT_RESULTS_DIR}); returns its path. */
export function writeStamped(result: StampedFigures, options: { short?: boolean } = {}): string {
  const dir = options.short ? SHORT_RESULTS_DIR : RESULTS_DIR;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${result.name}.json`;
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
