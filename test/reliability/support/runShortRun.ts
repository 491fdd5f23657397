import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { INJECTED_FAULTS_ENV, type InjectedFault } from "../../../reliability/support/injectedFaults.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A reliability script's JSON result, as it printed it. */
export interface ShortRunResult {
  name: string;
  short: boolean;
  passed: boolean;
  checks: Record<string, { held: boolean; seen: string }>;
  [figure: string]: unknown;
}

export interface ShortRun {
  /** The exit code (null: killed by a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The JSON result it printed; undefined when it printed none. */
  result: ShortRunResult | undefined;
}

/**
 * Runs `reliability/<script>.ts --short <args>` as its own process (as `npm run <script> -- --short`
 * does), with `faults` injected (none: the variable is removed), and resolves once it has exited.
 */
export function runShortRun(
  script: "soak" | "loadtest" | "scaleout",
  args: string[],
  faults: InjectedFault[] = [],
): Promise<ShortRun> {
  const env = { ...process.env };
  delete env[INJECTED_FAULTS_ENV];
  if (faults.length > 0) env[INJECTED_FAULTS_ENV] = faults.join(",");
  const child = spawn(process.execPath, ["--import", "tsx", `reliability/${script}.ts`, "--short", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, result: printedResult(stdout) }));
  });
}

/** The pretty-printed JSON object in `stdout`: from a line `{` to the next line `}`. */
function printedResult(stdout: string): ShortRunResult | undefined {
  const lines = stdout.split("\n");
  const start = lines.indexOf("{");
  const end = lines.indexOf("}", start);
  if (start < 0 || end < 0) return undefined;
  return JSON.parse(lines.slice(start, end + 1).join("\n")) as ShortRunResult;
}

/** The promises a result says broke. */
export function brokenPromises(result: ShortRunResult | undefined): string[] {
  return Object.entries(result?.checks ?? {})
    .filter(([, check]) => !check.held)
    .map(([promise]) => promise);
}
