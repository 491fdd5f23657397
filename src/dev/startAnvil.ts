import { spawn, type ChildProcess } from "node:child_process";
import { createPublicClient, defineChain, http, type Chain, type PublicClient } from "viem";
import { anvil as anvilChain } from "viem/chains";
import { ANVIL_MNEMONIC } from "./devAccounts.js";
import { findFreePort } from "./findFreePort.js";
import { resolveAnvilBinary } from "./resolveAnvilBinary.js";

export interface StartAnvilOptions {
  /** TCP port; default a free one. */
  port?: number;
  /** Chain id (default 31337, i.e. `eip155:31337`). */
  chainId?: number;
  /** How long to wait for anvil to answer `eth_chainId`, in ms (default 30 000). */
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

/** A running anvil on 127.0.0.1. */
export interface AnvilNode {
  rpcUrl: string;
  port: number;
  /** viem chain pointing at `rpcUrl`. */
  chain: Chain;
  publicClient: PublicClient;
  /** Process id of anvil. */
  pid: number;
  /** Kills anvil and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

const HOST = "127.0.0.1";
/** Fast polling: anvil mines every transaction at once, viem's default 4 s poll would only add latency. */
export const LOCAL_POLLING_INTERVAL_MS = 50;

/**
 * Starts anvil (from the npm package `@foundry-rs/anvil`) on loopback and resolves once it answers
 * JSON-RPC. Accounts are anvil's deterministic dev accounts ({@link ANVIL_MNEMONIC}).
 * The process is killed by `stop()`, and also when this Node process exits.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const binary = resolveAnvilBinary();
  const chainId = options.chainId ?? 31337;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  // A free port can be taken between probing and binding: retry a few times with a new one.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await findFreePort(HOST));
    try {
      return await launch({ binary, port, chainId, deadline, log: options.log });
    } catch (error) {
      const retryable = error instanceof AnvilExitedError && options.port === undefined && attempt < 3;
      if (!retryable || Date.now() > deadline) throw error;
      options.log?.(`anvil could not start on port ${port}, retrying: ${error.message}`);
    }
  }
}

class AnvilExitedError extends Error {
  override name = "AnvilExitedError";
}

async function launch(args: {
  binary: string;
  port: number;
  chainId: number;
  deadline: number;
  log: ((line: string) => void) | undefined;
}): Promise<AnvilNode> {
  const { binary, port, chainId, deadline, log } = args;
  const child = spawn(
    binary,
    [
      "--host",
      HOST,
      "--port",
      String(port),
      "--chain-id",
      String(chainId),
      "--mnemonic",
      ANVIL_MNEMONIC,
      "--silent",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const rpcUrl = `http://${HOST}:${port}`;
  const stop = async () => {
    process.off("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    await waitUntilAnswering(rpcUrl, child, deadline, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  if (child.pid === undefined) throw new Error("anvil has no pid");
  log?.(`anvil listening on ${rpcUrl} (chain ${chainId}, pid ${child.pid})`);

  const chain = defineChain({
    ...anvilChain,
    id: chainId,
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({
    chain,
    transport: http(rpcUrl),
    pollingInterval: LOCAL_POLLING_INTERVAL_MS,
  }) as PublicClient;
  return { rpcUrl, port, chain, publicClient, pid: child.pid, stop };
}

/** Polls `eth_chainId` until anvil answers, exits, or the deadline passes. */
async function waitUntilAnswering(
  rpcUrl: string,
  child: ChildProcess,
  deadline: number,
  stderr: () => string,
): Promise<void> {
  let delayMs = 20;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new AnvilExitedError(`anvil exited (${child.exitCode ?? child.signalCode}): ${stderr().trim()}`);
    }
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
        signal: AbortSignal.timeout(2_000),
      });
      if (response.ok && typeof ((await response.json()) as { result?: unknown }).result === "string") return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`anvil did not answer on ${rpcUrl} in time: ${stderr().trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 250);
  }
}
