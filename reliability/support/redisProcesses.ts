import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { REDIS_TEST_ARGS as BASE_ARGS } from "./startRedisServer.js";

/** One `redis-server` (or sentinel) process in its own process group, killed with its group. */
export interface RedisProcess {
  port: number;
  child: ChildProcess;
  /** SIGKILLs the process group and waits for the exit. */
  kill(): Promise<void>;
}

/** Starts `redis-server <args>` on `port` in its own process group and resolves once it answers PING. */
export async function startRedisProcess(port: number, args: string[]): Promise<RedisProcess> {
  const child = spawn("redis-server", args, { stdio: "ignore", detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const failed = new Promise<never>((_, reject) => child.once("error", reject));
  const deadline = Date.now() + 15_000;
  while ((await Promise.race([redisCli(port, ["PING"]).catch(() => ""), failed])) !== "PONG") {
    if (Date.now() > deadline || child.exitCode !== null) {
      killGroup(child);
      throw new Error(`redis-server on ${port} did not answer (args: ${args.join(" ")})`);
    }
    await sleep(50);
  }
  // A PONG may come from another test's redis-server that took the port first (ours then fails to bind
  // and exits): only ours, by its pid, will do. INFO is asked until it names a pid (a loaded machine has
  // been seen to fail a redis-cli call right after a PONG); a pid that is not ours is a foreign server.
  let pid: string | undefined;
  let said = "";
  while (pid === undefined) {
    said = await redisCli(port, ["INFO", "server"]).catch((error: Error) => error.message);
    pid = /process_id:(\d+)/.exec(said)?.[1];
    if (pid !== undefined) break;
    if (Date.now() > deadline || child.exitCode !== null) break;
    await sleep(50);
  }
  if (pid !== String(child.pid)) {
    killGroup(child);
    const why = pid === undefined ? `INFO named no pid: ${said.slice(0, 200)}` : `pid ${pid}`;
    throw new Error(`port ${port} is answered by another redis-server (${why}), not ours`);
  }
  return {
    port,
    child,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) killGroup(child);
      await exited;
    },
  };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {
    // gone already
  }
}

/** Runs `redis-cli -p <port> <args>` and resolves with its trimmed output (rejects on a non-zero exit). */
export function redisCli(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const cli = spawn("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    cli.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    cli.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    cli.once("error", reject);
    cli.once("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`redis-cli ${args.join(" ")}: ${out}`)),
    );
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds (an event, not a fixed wait); fails after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A 3-master / 3-replica Redis Cluster on loopback. */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of every node (the gateway's `ledger.cluster.nodes`). */
  nodes: string[];
  /** The port of the master that serves `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /**
   * `CLUSTER FAILOVER` on a replica of the master at `port`: the replica takes over (after catching up).
   * Resolves with the new master's port once every node agrees the cluster is ok.
   */
  failover(port: number): Promise<number>;
  /** SIGKILLs the node on `port` (its replica is promoted after the node timeout, 2 s here). */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts six cluster-mode `redis-server`s on free ports and joins them with `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), "x402-cluster-"));
  const taken = new Set<number>();
  const started = await Promise.allSettled(Array.from({ length: 6 }, () => startClusterNode(dir, taken)));
  const processes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = started.find((result) => result.status === "rejected");
  if (failure !== undefined) {
    await Promise.all(processes.map((process) => process.kill()));
    await rm(dir, { recursive: true, force: true });
    throw failure.reason;
  }
  const ports = processes.map((process) => process.port);
  const stop = async () => {
    await Promise.all(processes.map((process) => process.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await redisCli(ports[0] as number, [
      "--cluster",
      "create",
      ...ports.map((port) => `127.0.0.1:${port}`),
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    ]);
    await clusterOk(ports);
  } catch (error) {
    await stop();
    throw error;
  }
  const masterOf = async (key: string) => {
    // Ask any node still up (a test may have killed some).
    const live = processes.find(
      (process) => process.child.exitCode === null && process.child.signalCode === null,
    );
    const port = live?.port ?? (ports[0] as number);
    const slot = await redisCli(port, ["CLUSTER", "KEYSLOT", key]);
    const shards = await redisCli(port, ["--json", "CLUSTER", "SLOTS"]).catch(() => "");
    const table = JSON.parse(shards || "[]") as Array<[number, number, [string, number, string]]>;
    const owner = table.find(([from, to]) => Number(slot) >= from && Number(slot) <= to);
    if (!owner) throw new Error(`no master serves slot ${slot}`);
    return owner[2][1];
  };
  return {
    nodes: ports.map((port) => `redis://127.0.0.1:${port}`),
    masterOf,
    async failover(port) {
      const id = (await redisCli(port, ["CLUSTER", "MYID"])).trim();
      const replicas = await redisCli(port, ["CLUSTER", "REPLICAS", id]);
      const replicaPort = Number(/127\.0\.0\.1:(\d+)/.exec(replicas)?.[1]);
      if (!replicaPort) throw new Error(`the master on ${port} has no replica: ${replicas}`);
      await redisCli(replicaPort, ["CLUSTER", "FAILOVER"]);
      await until(`the replica on ${replicaPort} to take over`, async () =>
        (await redisCli(replicaPort, ["ROLE"])).startsWith("master"),
      );
      await clusterOk(ports);
      return replicaPort;
    },
    async kill(port) {
      await processes[ports.indexOf(port)]?.kill();
    },
    stop,
  };
}

async function clusterOk(ports: number[]): Promise<void> {
  await until("the cluster to be ok on every node", async () => {
    const infos = await Promise.all(ports.map((port) => redisCli(port, ["CLUSTER", "INFO"])));
    return infos.every((info) => info.includes("cluster_state:ok"));
  });
  // …and every master has a replica in sync (else the first WAIT of a test could time out).
  await until("every master's replica to be in sync", async () => {
    const infos = await Promise.all(ports.map((port) => redisCli(port, ["INFO", "replication"])));
    const masters = infos.filter((info) => info.includes("role:master"));
    return masters.length === 3 && masters.every((info) => /slave0:.*state=online/.test(info));
  });
}

/** `count` free ports, none of them in `taken` (which they join). */
async function distinctFreePorts(count: number, taken = new Set<number>()): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await findFreePort();
    if (taken.has(port)) continue;
    taken.add(port);
    ports.push(port);
  }
  return ports;
}

/**
 * One cluster-mode node: its port and its cluster bus (`--cluster-port`, else port + 10000, which nobody
 * checked was free) both found free. A port taken between finding and binding it (by another test's
 * connection) costs a start on fresh ports, up to three, not the suite.
 */
async function startClusterNode(dir: string, taken: Set<number>): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    const [port, bus] = (await distinctFreePorts(2, taken)) as [number, number];
    try {
      return await startRedisProcess(port, [
        "--port",
        String(port),
        ...BASE_ARGS,
        "--cluster-enabled",
        "yes",
        "--cluster-port",
        String(bus),
        "--cluster-config-file",
        join(dir, `nodes-${port}.conf`),
        "--cluster-node-timeout",
        "2000",
        "--dir",
        dir,
      ]);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** A master, two replicas and three sentinels on loopback. */
export interface RedisSentinel {
  /** `redis://127.0.0.1:<port>` of every sentinel (the gateway's `ledger.sentinel.sentinels`). */
  sentinels: string[];
  /** The master's name the sentinels know. */
  name: string;
  /** The port of the current master, as the sentinels say. */
  masterPort(): Promise<number>;
  /** `SENTINEL FAILOVER`: resolves with the new master's port once it is master and the sentinels say so. */
  failover(): Promise<number>;
  /** Makes every replica of the current master unresponsive for `seconds` (`DEBUG SLEEP`); resolves when they answer again. */
  stallReplicas(seconds: number): Promise<void>;
  /** SIGKILLs the current master; the sentinels promote a replica after `down-after-milliseconds` (1 s). */
  killMaster(): Promise<void>;
  stop(): Promise<void>;
}

/** {@link startOneRedisSentinel} on fresh ports, up to three times (a port taken by another test meanwhile). */
export async function startRedisSentinel(): Promise<RedisSentinel> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOneRedisSentinel();
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startOneRedisSentinel(): Promise<RedisSentinel> {
  const dir = await mkdtemp(join(tmpdir(), "x402-sentinel-"));
  const name = "x402ledger";
  const taken = new Set<number>();
  const [master, ...replicaPorts] = await distinctFreePorts(3, taken);
  const sentinelPorts = await distinctFreePorts(3, taken);
  const processes: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((process) => process.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // A full resync writes an RDB file even without persistence: keep it in the temporary directory.
    processes.push(
      await startRedisProcess(master as number, ["--port", String(master), ...BASE_ARGS, "--dir", dir]),
    );
    for (const port of replicaPorts) {
      processes.push(
        await startRedisProcess(port, [
          "--port",
          String(port),
          ...BASE_ARGS,
          "--dir",
          dir,
          "--replicaof",
          "127.0.0.1",
          String(master),
        ]),
      );
    }
    for (const port of sentinelPorts) {
      const file = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${master} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 2`,
          "",
        ].join("\n"),
      );
      processes.push(await startRedisProcess(port, [file, "--sentinel"]));
    }
    await until("both replicas to be in sync", async () => {
      const info = await redisCli(master as number, ["INFO", "replication"]);
      return (info.match(/state=online/g) ?? []).length === 2;
    });
    await until("every sentinel to see the replicas and the other sentinels", async () => {
      const views = await Promise.all(
        sentinelPorts.map((port) => redisCli(port, ["SENTINEL", "MASTER", name])),
      );
      return views.every((view) => /num-slaves\s+2/.test(view) && /num-other-sentinels\s+2/.test(view));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const masterPort = async () =>
    Number(
      (await redisCli(sentinelPorts[0] as number, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", name])).split(
        "\n",
      )[1],
    );
  return {
    sentinels: sentinelPorts.map((port) => `redis://127.0.0.1:${port}`),
    name,
    masterPort,
    async failover() {
      const before = await masterPort();
      await redisCli(sentinelPorts[0] as number, ["SENTINEL", "FAILOVER", name]);
      let after = before;
      await until("the sentinels to name a new master", async () => {
        after = await masterPort();
        return after !== before && (await redisCli(after, ["ROLE"])).startsWith("master");
      });
      return after;
    },
    async killMaster() {
      const port = await masterPort();
      await processes.find((process) => process.port === port)?.kill();
    },
    async stallReplicas(seconds) {
      // Right after a failover the replicas reattach to the new master within seconds: wait for them.
      let info = "";
      await until("the master to have its replicas back", async () => {
        info = await redisCli(await masterPort(), ["INFO", "replication"]).catch(() => "");
        return /slave\d+:ip=/.test(info);
      }).catch(() => undefined);
      const ports = [...info.matchAll(/slave\d+:ip=[^,]+,port=(\d+)/g)].map(([, port]) => Number(port));
      if (ports.length === 0) throw new Error(`the master has no replica to stall: ${info}`);
      await Promise.all(ports.map((port) => redisCli(port, ["DEBUG", "SLEEP", String(seconds)])));
    },
    stop,
  };
}
