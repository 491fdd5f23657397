import { finishRun } from "./finishRun.js";

/** How long the clean-up of a run that overran may take before the process exits anyway, in ms. */
const CLEANUP_GRACE_MS = 20_000;

/**
 * Bounds a short run: if it has not finished within `budgetMs`, it fails (its JSON result says so),
 * `cleanup` gets {@link CLEANUP_GRACE_MS} to stop what the run started, and the process exits 1.
 */
export function boundShortRun(name: string, budgetMs: number, cleanup: () => Promise<unknown>): void {
  const seconds = Math.round(budgetMs / 1000);
  // Referenced: a run stuck on a promise nothing else keeps alive still ends here, with its result (each
  // script ends with process.exit, so one that finishes does not wait for the bound).
  setTimeout(() => {
    finishRun(
      name,
      { error: `did not finish within ${seconds} s` },
      [{ promise: `finished within ${seconds} s`, seen: "still running", held: false }],
      { short: true },
    );
    const grace = new Promise((resolve) => setTimeout(resolve, CLEANUP_GRACE_MS));
    void Promise.race([cleanup().catch(() => undefined), grace]).then(() => process.exit(1));
  }, budgetMs);
}
