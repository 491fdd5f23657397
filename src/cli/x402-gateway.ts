#!/usr/bin/env node
import { loadPlugins } from "../config/loadPlugins.js";
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { logFormatFrom } from "../common/logFormat.js";
import { ConfigError } from "../config/ConfigError.js";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { inspectConfig, loadConfig } from "../config/loadConfig.js";
import { ledgerSharingProblems } from "../config/ledgerSharingProblems.js";
import { plainHttpListenerProblem } from "../config/plainHttpListenerProblem.js";
import { metricsListenerOf } from "../config/metricsListenerOf.js";
import type { CommandIo } from "./recognize.js";
import { DRAIN_MESSAGE, parseWorkers, servePrimary } from "./serveWorkers.js";

const USAGE = `Usage: x402-gateway <command> [options]

An x402 V2 paywall in front of any HTTP API: prices routes from a config file, answers 402 with
an offer, verifies and settles payments through a facilitator, and proxies paid requests upstream.

Commands:
  serve --config <file>      run the gateway (YAML or JSON config; see README.md, "Quickstart: the gateway")
  check-config <file>        validate a config file: exit 0, or 1 with every problem (file:line key: …)
  recognize <payer> …        ask the chain whether a payer is recognized (est_ouverte)
  revoke --config <file> --payer <address>
                             revoke a refunded payer's recognition on every running instance

Options:
  --version                  print the version and exit

Run \`x402-gateway <command> --help\` for a command's options.`;

const SERVE_USAGE = `Usage: x402-gateway serve --config <file> [--port <n>] [--host <addr>] [--workers <n>|auto]

Runs the gateway described by <file> (YAML or JSON; \${VAR} and \${VAR:-default} read the environment).
Prints "x402-gateway listening on <url>" and "x402-gateway metrics on <url>" (metrics.listen), then one
JSON log line per request (LOG_FORMAT=pretty: one readable line each, for a terminal). SIGTERM or SIGINT:
stop accepting, let in-flight requests and settlements finish (limits.drainTimeoutMs), log "stopped", exit 0.

  --config  the config file (required); the package's config/gateway.example.yaml is a production one
  --port    overrides listen.port (0 picks a free port)
  --host    overrides listen.host
  --workers processes sharing the port (Node cluster; default 1, auto = one per core). More than one
            needs a shared ledger (ledger: { type: redis, ... }), or a payment could pay once per worker.
            SIGTERM/SIGINT drain every worker.
  --help    this text

Exit status: 0 after a clean shutdown, 1 when the config is invalid or the port cannot be bound, 2 on a usage error.`;

const CHECK_USAGE = `Usage: x402-gateway check-config <file> [--workers <n>|auto]

Validates a gateway config file exactly as \`serve\` would (schema, \${VAR} references, prices, route keys,
https-only outbound URLs, the listener's TLS and that its certificate and key files exist, parse and
match) without starting anything; environment, schema and cross-field problems are reported together. Prints every problem as
"<file>:<line>:<column> <key>: <what was expected>", and a warning for settings that are safe on one
instance only (recognition with a memory ledger).

  --workers the --workers serve will run with: more than one needs a shared (Redis) ledger

Exit status: 0 when valid (warnings or not), 1 when not, 2 on a usage error.`;

function usageError(io: CommandIo, command: string, message: string, usage: string): number {
  io.stderr.write(`x402-gateway${command ? ` ${command}` : ""}: ${message}\n\n${usage}\n`);
  return 2;
}

async function checkConfig(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { workers: { type: "string" }, help: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usageError(io, "check-config", (error as Error).message, CHECK_USAGE);
  }
  if (parsed.values.help) {
    io.stdout.write(`${CHECK_USAGE}\n`);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (file === undefined || extra.length > 0)
    return usageError(io, "check-config", "expected one config file", CHECK_USAGE);
  const workers = parseWorkers(parsed.values.workers);
  if (workers === undefined) {
    return usageError(
      io,
      "check-config",
      `--workers must be a positive number or auto, got ${parsed.values.workers}`,
      CHECK_USAGE,
    );
  }
  const { config, problems } = await inspectConfig(file);
  const sharing = config ? ledgerSharingProblems(config, workers) : { refusals: [], warnings: [] };
  if (problems.length > 0 || sharing.refusals.length > 0) {
    // Every problem of the run at once: the file's, then what this deployment (--workers) adds.
    if (problems.length > 0) io.stderr.write(`${new ConfigError(problems).message}\n`);
    for (const refusal of sharing.refusals) io.stderr.write(`${file}: ${refusal}\n`);
    return 1;
  }
  for (const warning of sharing.warnings) io.stderr.write(`${file}: warning: ${warning}\n`);
  // Loaded here only: the official validator brings heavy dependencies, and may not be installed at all.
  const { officialBazaarCheck } = await import("./officialBazaarCheck.js");
  const bazaar = await officialBazaarCheck(config as GatewayConfig);
  if (!bazaar.available) {
    io.stdout.write(
      `${file}: note: ${bazaar.declarations} Bazaar declaration(s) checked by the gateway's own rules only; the official validator (@x402/extensions) is not installed (npm install --save-dev @x402/extensions to run it): ${bazaar.reason}\n`,
    );
  } else {
    for (const warning of bazaar.warnings)
      io.stderr.write(`${file}: warning: the official Bazaar validator (@x402/extensions): ${warning}\n`);
  }
  io.stdout.write(`${file}: ok — ${describeConfig(config as GatewayConfig)}\n`);
  return 0;
}

function describeConfig(config: GatewayConfig): string {
  const routes = Object.keys(config.routes).length;
  const scheme = config.listen.tls ? "https" : "http";
  return `${routes} priced route${routes === 1 ? "" : "s"}, ${config.upstreams.length} upstream${config.upstreams.length === 1 ? "" : "s"}, listening on ${scheme}://${config.listen.host}:${config.listen.port}, paying ${config.payTo} on ${config.network}`;
}

async function serve(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        config: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        workers: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    });
  } catch (error) {
    return usageError(io, "serve", (error as Error).message, SERVE_USAGE);
  }
  const args = parsed.values;
  if (args.help) {
    io.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  if (args.config === undefined) return usageError(io, "serve", "--config <file> is required", SERVE_USAGE);
  if (args.port !== undefined && !/^[0-9]{1,5}$/.test(args.port)) {
    return usageError(io, "serve", `--port must be a number, got ${args.port}`, SERVE_USAGE);
  }

  const workers = parseWorkers(args.workers);
  if (workers === undefined) {
    return usageError(
      io,
      "serve",
      `--workers must be a positive number or auto, got ${args.workers}`,
      SERVE_USAGE,
    );
  }

  try {
    logFormatFrom(process.env.LOG_FORMAT);
  } catch (error) {
    io.stderr.write(`x402-gateway serve: ${(error as Error).message}\n`);
    return 1;
  }

  let config: GatewayConfig;
  try {
    config = await loadConfig(args.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (args.port !== undefined) config.listen.port = Number(args.port);
  if (args.host !== undefined) config.listen.host = args.host;
  const plainHttp = plainHttpListenerProblem(config);
  if (plainHttp !== undefined) {
    io.stderr.write(`invalid config ${args.config}:\n${args.config} listen.host (--host): ${plainHttp}\n`);
    return 1;
  }
  const sharing = ledgerSharingProblems(config, workers);
  for (const refusal of sharing.refusals) io.stderr.write(`x402-gateway serve: ${args.config}: ${refusal}\n`);
  if (sharing.refusals.length > 0) return 1;
  // Workers load the config too: the primary (or the only process) says it once.
  if (cluster.isPrimary) {
    for (const warning of sharing.warnings) io.stderr.write(`x402-gateway serve: warning: ${warning}\n`);
  }
  if (workers > 1 && cluster.isPrimary) {
    const scheme = config.listen.tls ? "https" : "http";
    // The primary serves the metrics listener: one scrape answers for every worker.
    const aggregator = (await import("./clusterMetrics.js")).aggregateWorkerMetrics();
    const metricsAt = metricsListenerOf(config);
    let metrics;
    if (metricsAt !== undefined) {
      const { listenMetrics } = await import("../gateway/listenMetrics.js");
      const { MetricsListenError } = await import("../gateway/MetricsListenError.js");
      const text = () => aggregator.clusterMetrics();
      try {
        metrics = await listenMetrics({ ...metricsAt, contentType: aggregator.contentType, text });
      } catch (error) {
        const failure = new MetricsListenError(metricsAt.host, metricsAt.port, error);
        io.stderr.write(`x402-gateway serve: ${failure.message}\n`);
        return 1;
      }
    }
    return servePrimary({ workers, scheme, host: config.listen.host, io, metrics });
  }

  // Loaded here, not at the top: `check-config` and `--help` stay fast without the server's dependencies.
  const { createGateway } = await import("../gateway/createGateway.js");
  const { listenGateway } = await import("../gateway/listenGateway.js");
  const { X402OptionsError } = await import("../paywall/setup/X402OptionsError.js");
  const { createGatewayLogger } = await import("../gateway/createGatewayLogger.js");
  // A worker's log lines say which worker wrote them.
  const logger = cluster.isWorker
    ? createGatewayLogger(config.logging.level).child({ worker: cluster.worker?.id })
    : undefined;
  let gateway;
  try {
    const metricsText = cluster.isWorker
      ? (await import("./clusterMetrics.js")).clusterMetricsText
      : undefined;
    // Loaded (and checked) by loadConfig already: this takes them from Node's module cache.
    const { hooks } = await loadPlugins(config.plugins);
    gateway = createGateway(config, {
      ...(logger ? { logger, metricsText } : {}),
      ...(hooks ? { paywallOverrides: { hooks } } : {}),
    });
  } catch (error) {
    if (!(error instanceof X402OptionsError)) throw error;
    io.stderr.write(`invalid config ${args.config}:\n${error.problems.join("\n")}\n`);
    return 1;
  }
  let running;
  try {
    // In a cluster the primary serves the metrics listener (every worker's, aggregated).
    running = await listenGateway(gateway, { metricsListener: !cluster.isWorker });
  } catch (error) {
    const { BaseError } = await import("../common/BaseError.js");
    // A start-up failure of ours (metrics listener, facilitator support) says what it is; others are the port.
    const message =
      error instanceof BaseError
        ? error.message
        : `cannot listen on ${config.listen.host}:${config.listen.port}: ${(error as Error).message}`;
    io.stderr.write(`x402-gateway serve: ${message}\n`);
    return 1;
  }
  // The handlers are in place before the line that tells a supervisor (or a test) it may signal.
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      // A worker hears from the primary and maybe from the terminal too: once is enough.
      if (stopping && cluster.isWorker) return;
      if (stopping) {
        gateway.logger.warn({ signal }, "second signal: exiting without waiting");
        return resolve(1);
      }
      stopping = true;
      gateway.logger.info({ signal }, "shutting down");
      void running.close().then(() => {
        gateway.logger.info({ signal }, "stopped");
        gateway.logger.flush(() => resolve(0));
      });
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    if (cluster.isWorker) process.on("message", (message) => message === DRAIN_MESSAGE && stop("SIGTERM"));
  });
  if (cluster.isPrimary) {
    io.stdout.write(`x402-gateway listening on ${running.url}\n`);
    if (running.metricsUrl) io.stdout.write(`x402-gateway metrics on ${running.metricsUrl}\n`);
  }
  return stopped;
}

/** This package's version: package.json sits two levels up from both src/cli and dist/cli. */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

/** Runs the `x402-gateway` command line; resolves the exit status. */
export async function runGatewayCli(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serve(rest, io);
    case "check-config":
      return checkConfig(rest, io);
    case "recognize":
      return (await import("./recognize.js")).runRecognize(rest, io);
    case "revoke":
      return (await import("./revoke.js")).runRevoke(rest, io);
    case "--version":
    case "-v":
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    case undefined:
    case "--help":
    case "-h":
    case "help":
      io.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      return usageError(io, "", `unknown command ${JSON.stringify(command)}`, USAGE);
  }
}

const io: CommandIo = { stdout: process.stdout, stderr: process.stderr };
runGatewayCli(process.argv.slice(2), io).then(
  (code) => {
    // Exit when the loop empties, so the logger's pending asynchronous writes (the final "stopped") reach
    // stdout; a stray handle (an idle keep-alive socket) delays the exit by a second at most.
    process.exitCode = code;
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (error: unknown) => {
    console.error(`x402-gateway: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
