import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where suites, soak and load test leave their figures (git-ignored); `npm run reliability-report` reads them. */
export const RESULTS_DIR = fileURLToPath(new URL("../results/", import.meta.url));

/** Writes `<name>.json` under {@link RESULTS_DIR}, stamped with the time and the Node version. */
export function writeFigures(name: string, figures: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${name}.json`;
  const stamped = { name, at: new Date().toISOString(), node: process.version, ...figures };
  writeFileSync(file, `${JSON.stringify(stamped, null, 2)}\n`);
  return file;
}
