import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon, { type AutocannonRequest } from "autocannon";
import type { ContenderName, ContenderOptions } from "./contenders.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, "..", ".cache");
export const PROFILE_DIR = join(CACHE, "profiles");

let bundles: Promise<void> | undefined;

/**
 * Servers run as plain `node` on an esbuild bundle of their entry (dependencies left external), as a
 * deployed build would: no TypeScript loader thread in the measured process, its CPU or its memory.
 */
export function bundleServers(): Promise<void> {
  return (bundles ??= (async () => {
    const { build } = await import("esbuild");
    await build({
      entryPoints: {
        "bench-serve": join(HERE, "serve.ts"),
        "bench-cli": join(HERE, "..", "src", "cli", "x402-gateway.ts"),
      },
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      outdir: CACHE,
      outExtension: { ".js": ".mjs" },
      logLevel: "warning",
    });
  })());
}

/** Where the bundled `x402-gateway` CLI is, once {@link bundleServers} has run. */
export const BUNDLED_CLI = join(CACHE, "bench-cli.mjs");

/** A contender running in its own process (never the load generator's). */
export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** Peak RSS of the server process so far, in bytes. */
  peakRss(): Promise<number>;
  /** CPU time (user + system) the server process used so far, in µs. */
  cpuMicros(): Promise<number>;
  close(): Promise<void>;
}

function once<T>(child: ChildProcess, pick: (message: unknown) => T | undefined, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const value = pick(message);
      if (value === undefined) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(value);
    };
    const onExit = (code: number | null) => {
      child.off("message", onMessage);
      reject(new Error(`${what}: the server process exited (${code})`));
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

/** Start `serve.ts <name>` (bundled); `profile` adds `--cpu-prof` (written to `.cache/profiles` on close). */
export async function startServer(
  name: ContenderName,
  options: ContenderOptions = {},
  profile = false,
): Promise<ServerProcess> {
  await bundleServers();
  const execArgv = profile ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = fork(join(CACHE, "bench-serve.mjs"), [name, JSON.stringify(options)], {
    execArgv,
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const url = await once(child, (m) => (m as { url?: string }).url, `starting ${name}`);
  return {
    name,
    url,
    pid: child.pid ?? 0,
    peakRss: () => {
      const answer = once(child, (m) => (m as { maxRssBytes?: number }).maxRssBytes, `${name} rss`);
      child.send("rss");
      return answer;
    },
    cpuMicros: () => {
      const answer = once(child, (m) => (m as { cpuMicros?: number }).cpuMicros, `${name} cpu`);
      child.send("cpu");
      return answer;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.send("close");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Responses with another status than the expected one, plus socket errors and timeouts. */
  wrong: number;
  total: number;
  /** CPU the load generator (this process: autocannon) used, in cores (1 = one core busy all along). */
  generatorCores: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  /** Stop after this many requests instead (each connection sends one after another). */
  amount?: number;
  /** A response slower than this counts as an error; 10 s by default. */
  timeoutSeconds?: number;
  expectStatus: number;
  /** A header value per request (distinct payments); requests without one reuse nothing. */
  nextHeaders?: () => Record<string, string>;
  /** `GET` unless told. */
  method?: "GET" | "POST";
  /** Headers on every request. */
  headers?: Record<string, string>;
}

/** One autocannon run from this (the runner's) process. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const requests: AutocannonRequest[] | undefined = options.nextHeaders
    ? [
        {
          setupRequest: (req) => ({
            ...req,
            headers: { ...req.headers, ...options.nextHeaders?.() },
          }),
        },
      ]
    : undefined;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    ...(options.amount ? { amount: options.amount } : {}),
    timeout: options.timeoutSeconds ?? 10,
    ...(options.method ? { method: options.method } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(requests ? { requests } : {}),
  });
  const expected = result.statusCodeStats[String(options.expectStatus)]?.count ?? 0;
  const answered = Object.values(result.statusCodeStats).reduce((sum, stat) => sum + stat.count, 0);
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    wrong: answered - expected + result.errors + result.timeouts,
    total: result.requests.total,
    generatorCores: cpuCores(process.cpuUsage(cpuBefore), performance.now() - started),
  };
}

/** CPU time (user + system, µs) spent over `elapsedMs`, as a number of busy cores. */
function cpuCores(usage: NodeJS.CpuUsage, elapsedMs: number): number {
  return (usage.user + usage.system) / 1000 / elapsedMs;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
