/**
 * Faults the reliability scripts' own tests inject (`test/reliability/soakShortRun.test.ts`,
 * `test/reliability/loadtestShortRun.test.ts`, `test/reliability/scaleoutShortRun.test.ts`) to show that
 * a broken promise fails a run. Read from {@link INJECTED_FAULTS_ENV} by the scripts' harness only (the
 * bench rig and the failover probe), never by the gateway; a run for figures never sets it.
 * - `double-serve`: each paid request the gateway served is sent to the upstream once more, and a
 *   payment it served once is served again (from the upstream, past the gateway);
 * - `wrong-code`: every refusal's code becomes `internal_error` (its status and headers kept);
 * - `lose-write`: one reservation the ledger acknowledged is dropped during a failover.
 */
export type InjectedFault = "double-serve" | "wrong-code" | "lose-write";

/** Comma-separated {@link InjectedFault}s. */
export const INJECTED_FAULTS_ENV = "X402_RELIABILITY_INJECT_FAULTS";

const KNOWN: readonly InjectedFault[] = ["double-serve", "wrong-code", "lose-write"];

/** The faults to inject in this run (none unless {@link INJECTED_FAULTS_ENV} is set); throws on an unknown name. */
export function injectedFaults(env: NodeJS.ProcessEnv = process.env): ReadonlySet<InjectedFault> {
  const names = (env[INJECTED_FAULTS_ENV] ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!KNOWN.includes(name as InjectedFault))
      throw new Error(`${INJECTED_FAULTS_ENV}: unknown fault "${name}" (known: ${KNOWN.join(", ")})`);
  }
  return new Set(names as InjectedFault[]);
}
