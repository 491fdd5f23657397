import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { findFreePort } from "../../src/dev/findFreePort.js";

/** A private `redis-server` on a free loopback port, without persistence, that a test may kill and restart. */
export interface RedisServer {
  url: string;
  port: number;
  /** SIGKILLs the server (connections drop, the data is gone: it keeps nothing on disk). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
  /** Makes the server unresponsive for `seconds` (`DEBUG SLEEP`); resolves when it answers again. */
  sleep(seconds: number): Promise<void>;
}

/** Every test Redis: loopback only, nothing on disk, DEBUG SLEEP (the "slow Redis" fault) from loopback only. */
export const REDIS_TEST_ARGS = [
  "--bind",
  "127.0.0.1",
  "--save",
  "",
  "--appendonly",
  "no",
  "--enable-debug-command",
  "local",
];

/** Starts `redis-server --port <free> --save "" --appendonly no`; never the machine's own Redis. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await findFreePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), ...REDIS_TEST_ARGS], { stdio: "ignore" });
    await waitForPort(port, 10_000);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  const sleep = (seconds: number) =>
    new Promise<void>((resolve, reject) => {
      const cli = spawn("redis-cli", ["-p", String(port), "DEBUG", "SLEEP", String(seconds)], {
        stdio: "ignore",
      });
      cli.once("error", reject);
      cli.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`redis-cli exited ${code}`))));
    });
  return { url: `redis://127.0.0.1:${port}`, port, kill, restart: start, stop: kill, sleep };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
