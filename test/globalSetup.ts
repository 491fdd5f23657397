import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer } from "node:net";

/** Every process started during this run carries this variable (children inherit it): how teardown finds them. */
const RUN_MARKER = "X402_TEST_RUN";

/**
 * The suite's prerequisites and its cleanup. Redis: `REDIS_URL` when set, else the one on
 * 127.0.0.1:6379 when it answers, else a `redis-server` started here on a free port (Debian's
 * `redis-server` package), else a failure naming what is missing. On teardown, every process the run
 * started and left behind (anvil, `npm start`'s stack, CLI children of a test that timed out) is killed.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const run = randomUUID();
  process.env[RUN_MARKER] = run;
  let redis: ChildProcess | undefined;
  if (process.env.REDIS_URL === undefined) {
    if (await answers(6379)) process.env.REDIS_URL = "redis://127.0.0.1:6379";
    else {
      const port = await freePort();
      redis = await startRedis(port);
      process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
    }
  }
  return async () => {
    redis?.kill("SIGKILL");
    killLeftovers(run);
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once("error", (error) =>
      reject(
        new Error(
          `the tests need Redis: set REDIS_URL, run one on 127.0.0.1:6379, or install redis-server (apt-get install -y redis-server): ${error.message}`,
        ),
      ),
    ),
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await Promise.race([answers(port), failed])) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 5 s`);
}

/** Kill what this run started and left running: processes whose environment carries the run's marker. */
function killLeftovers(run: string): void {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return; // no /proc (not Linux): nothing to look through
  }
  const marker = `${RUN_MARKER}=${run}`;
  for (const pid of pids) {
    const id = Number(pid);
    if (id === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      // Vitest's own workers are this process's children: they end with it.
      if (parent === process.pid) continue;
      if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker)) continue;
      process.kill(id, "SIGKILL");
      console.warn(`test teardown: killed a leftover process ${pid} (${readCommand(pid)})`);
    } catch {
      // gone already, or not ours to read
    }
  }
}

function readCommand(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 120);
  } catch {
    return "?";
  }
}
