import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROBE = fileURLToPath(new URL("./processProbe.ts", import.meta.url));

export interface GatewayProcess {
  /** Base URL the gateway printed. */
  url: string;
  /** Where it serves its metrics (the line it printed); undefined with no metrics listener. */
  metricsUrl: string | undefined;
  child: ChildProcess;
  pid: number;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Process probe samples (RSS, event-loop delay), when started with `probeIntervalMs`. */
  probes: ProbeSample[];
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** One line of `processProbe.ts`: the gateway process measured from inside. */
export interface ProbeSample {
  at: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** Event-loop delay over the last interval, in ms. */
  loopDelayMs: { p50: number; p99: number; max: number };
}

export interface SpawnGatewayOptions {
  /** Also preload the process probe, printing a sample to stderr every this many ms. */
  probeIntervalMs?: number;
  /** How long to wait for the "listening" line, in ms (default 60 000: tsx compiles on a loaded machine). */
  startTimeoutMs?: number;
  /** Start it in a process group of its own (killed as a group by `stop`). */
  detached?: boolean;
}

/**
 * Starts `x402-gateway serve` as its own process (tsx, as `npm run x402-gateway` does) with `config`
 * written to a temporary JSON file, and resolves once it prints the URL it listens on.
 */
export async function spawnGateway(
  config: GatewayConfigInput,
  options: SpawnGatewayOptions = {},
): Promise<GatewayProcess> {
  const dir = await mkdtemp(join(tmpdir(), "x402-gw-"));
  const file = join(dir, "gateway.json");
  await writeFile(file, JSON.stringify(config, null, 2));
  const imports = ["--import", "tsx"];
  if (options.probeIntervalMs !== undefined) imports.push("--import", PROBE);
  const child = spawn(process.execPath, [...imports, "src/cli/x402-gateway.ts", "serve", "--config", file], {
    cwd: ROOT,
    env: { ...process.env, X402_PROBE_INTERVAL_MS: String(options.probeIntervalMs ?? "") },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let stdout = "";
  let stderr = "";
  const probes: ProbeSample[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    for (const line of chunk.split("\n")) {
      if (line.startsWith("PROBE ")) probes.push(JSON.parse(line.slice(6)) as ProbeSample);
      else if (line) stderr += `${line}\n`;
    }
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => {
      void rm(dir, { recursive: true, force: true });
      resolve(code ?? signal ?? "unknown");
    }),
  );
  const metricsExpected = config.metrics?.enabled !== false && config.metrics?.listen !== false;
  const [url, metricsUrl] = await new Promise<[string, string | undefined]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`the gateway did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${stderr}`),
      );
    }, options.startTimeoutMs ?? 60_000);
    const onData = () => {
      const match = stdout.match(/x402-gateway listening on (http:\/\/\S+)/);
      const metrics = stdout.match(/x402-gateway metrics on (http:\/\/\S+)/);
      if (!match?.[1] || (metricsExpected && !metrics?.[1])) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      resolve([match[1], metrics?.[1]]);
    };
    child.stdout.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}) before listening:\n${stdout}\n${stderr}`));
    });
  });
  return {
    url,
    metricsUrl,
    child,
    pid: child.pid as number,
    output: () => ({ stdout, stderr }),
    probes,
    exited,
    stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.detached) process.kill(-(child.pid as number), signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}
