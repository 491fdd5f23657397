import { stampFigures, writeStamped } from "./figures.js";

/** One promise a run checks: the promise in words (stable), what the run saw, and whether it held. */
export interface RunCheck {
  promise: string;
  seen: string;
  held: boolean;
}

/** How a script runs: full length (the figures of the docs) or short (`--short`, what CI runs). */
export interface RunMode {
  short: boolean;
}

/**
 * Ends a run: prints its JSON result (the figures, each check, `passed`) and one ok/FAIL line per check,
 * and writes the result where the report (a full run) or CI (a short run) reads it. Returns whether
 * every check held.
 */
export function finishRun(
  name: string,
  figures: Record<string, unknown>,
  checks: RunCheck[],
  mode: RunMode,
): boolean {
  const passed = checks.every((check) => check.held);
  const result = stampFigures(name, {
    ...figures,
    short: mode.short,
    checks: Object.fromEntries(checks.map(({ promise, seen, held }) => [promise, { held, seen }])),
    passed,
  });
  const file = writeStamped(result, mode);
  console.log(JSON.stringify(result, null, 2));
  for (const { promise, seen, held } of checks) console.log(`${held ? "ok  " : "FAIL"} ${promise}: ${seen}`);
  console.log(`${name}${mode.short ? " (short)" : ""}: ${passed ? "passed" : "FAILED"} → ${file}`);
  return passed;
}
