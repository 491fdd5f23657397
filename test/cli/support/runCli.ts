import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawn a TypeScript CLI of this repository with tsx, as `npm run` would. */
export function spawnCli(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Run to completion and collect the output. */
export function runCli(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  const child = spawnCli(script, args, env);
  return collect(child);
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Resolve with the first stdout match of `pattern` (the child keeps running); reject if it exits first. */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  what = "the expected line",
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer | string) => (errors += String(chunk)));
    const onData = (chunk: Buffer | string) => {
      seen += String(chunk);
      const match = seen.match(pattern);
      if (match) {
        child.stdout?.off("data", onData);
        resolve(match);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited (${code}) before ${what}:\n${seen}\n${errors}`)));
  });
}
