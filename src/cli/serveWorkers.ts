import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import type { CommandIo } from "./recognize.js";

/** The message the primary sends a worker to drain and exit (a signal could reach a worker twice). */
export const DRAIN_MESSAGE = "x402-gateway:drain";

/** `--workers` as a count: a positive integer, or `auto` for the machine's cores; undefined when invalid. */
export function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return 1;
  if (value === "auto") return availableParallelism();
  if (!/^[0-9]{1,3}$/.test(value) || Number(value) < 1) return undefined;
  return Number(value);
}

export interface PrimaryOptions {
  workers: number;
  /** Shown in the listening line with the port the workers share. */
  scheme: "http" | "https";
  host: string;
  io: CommandIo;
  /** The primary's metrics listener (every worker's metrics), announced after the workers listen. */
  metrics?: { url: string; close(): Promise<void> } | undefined;
}

/**
 * The cluster's primary: start `workers` copies of `serve` sharing one listening socket, say where they
 * listen once all do, replace a worker that dies, and on SIGTERM/SIGINT have every worker drain (a second
 * signal kills them). Resolves 0 when all drained cleanly, 1 otherwise.
 */
export function servePrimary({ workers, scheme, host, io, metrics }: PrimaryOptions): Promise<number> {
  return new Promise<number>((resolve) => {
    const listening = new Set<number>();
    let announced = false;
    let stopping = false;
    let failed = false;
    const alive = () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    const fork = () => cluster.fork();
    const finish = () => {
      if (announced) io.stdout.write(`x402-gateway stopped (${workers} workers)\n`);
      void (metrics?.close() ?? Promise.resolve()).then(() => resolve(failed ? 1 : 0));
    };

    cluster.on("listening", (worker, address) => {
      listening.add(worker.id);
      if (announced || listening.size < workers) return;
      announced = true;
      const shown = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
      const hostPart = shown.includes(":") ? `[${shown}]` : shown;
      io.stdout.write(
        `x402-gateway listening on ${scheme}://${hostPart}:${address.port} (${workers} workers)\n`,
      );
      if (metrics) io.stdout.write(`x402-gateway metrics on ${metrics.url} (${workers} workers)\n`);
    });
    cluster.on("exit", (worker, code, signal) => {
      listening.delete(worker.id);
      if (code !== 0) failed = true;
      if (stopping || !announced) {
        // A worker that cannot start (port taken, bad TLS files) stops the whole cluster.
        if (!stopping) stop("SIGTERM");
        if (alive().length === 0) finish();
        return;
      }
      io.stderr.write(`x402-gateway: worker ${worker.id} exited (${signal ?? code}); starting another\n`);
      failed = false;
      fork();
    });
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        io.stderr.write(`x402-gateway: second ${signal}: killing the workers without waiting\n`);
        for (const worker of alive()) worker.process.kill("SIGKILL");
        return;
      }
      stopping = true;
      // A worker still starting has nothing to drain and would not hear the message yet.
      for (const worker of alive()) {
        if (listening.has(worker.id)) worker.send(DRAIN_MESSAGE);
        else worker.process.kill("SIGTERM");
      }
      if (alive().length === 0) finish();
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    for (let i = 0; i < workers; i++) fork();
  });
}
