#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pino from "pino";
import { parse as parseYaml } from "yaml";
import {
  listenStakingBackend,
  stakingConfigSchema,
  type ListeningStakingBackend,
  type StakingConfigInput,
} from "../staking/index.js";

const USAGE = `Usage: staking-backend [--config <file.json|yaml>] [--port <n>] [--host <addr>] [--data <sqlite file>]

Serves the Starknet staking backend (descriptor at /, OpenAPI at /openapi.json).
With no arguments: local simulated validator on http://127.0.0.1:3001, state in data/staking.sqlite.

  --config  JSON or YAML config file (keys and defaults: docs/staking-backend.md, "Config", in the repository)
  --port    port to listen on (0 picks a free one); overrides server.port
  --host    address to listen on; overrides server.host
  --data    SQLite file of the local adapter; overrides local.dataFile
  --help    this text`;

function fail(message: string): never {
  console.error(`staking-backend: ${message}`);
  process.exit(2);
}

function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    fail(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const value: unknown = parseYaml(text);
    if (value === null || value === undefined) return {};
    if (typeof value !== "object" || Array.isArray(value)) fail(`${file}: the config must be an object`);
    return value as Record<string, unknown>;
  } catch (error) {
    fail(`${file}: not valid JSON or YAML: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        config: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        data: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const raw: Record<string, unknown> = args.config ? readConfig(args.config) : {};
  const server = { ...(raw.server as Record<string, unknown> | undefined) };
  if (args.port !== undefined) {
    if (!/^[0-9]{1,5}$/.test(args.port)) fail(`--port must be a number, got ${args.port}`);
    server.port = Number(args.port);
  }
  if (args.host !== undefined) server.host = args.host;
  const local = { ...(raw.local as Record<string, unknown> | undefined) };
  if (args.data !== undefined) local.dataFile = args.data;
  const parsed = stakingConfigSchema.safeParse({ ...raw, server, local });
  if (!parsed.success) {
    const where = args.config ?? "config";
    fail(
      parsed.error.issues.map((i) => `${where}: ${i.path.join(".") || "(root)"}: ${i.message}`).join("\n"),
    );
  }
  const config = parsed.data;

  const logger = pino({ level: process.env.LOG_LEVEL ?? "info" });
  let running: ListeningStakingBackend;
  try {
    running = await listenStakingBackend({ config: config as StakingConfigInput, logger });
  } catch (error) {
    fail(`cannot start: ${(error as Error).message}`);
  }
  const where =
    config.adapter === "local" ? `data ${config.local.dataFile}` : `rpc ${config.starknet?.rpcUrl}`;
  console.log(`staking-backend listening on ${running.url} (adapter ${config.adapter}, ${where})`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "staking-backend stopping");
    setTimeout(() => running.server.closeAllConnections(), 5_000).unref();
    void running.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

void main();
