import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";

/**
 * Where the state every gateway instance shares lives: one Redis (`url`), a Redis Cluster (`cluster`) or
 * a master watched by Redis Sentinel (`sentinel`). Exactly one is set (the config schema checks it).
 */
export interface RedisTopology {
  url?: string | undefined;
  cluster?: { nodes: string[] } | undefined;
  sentinel?: { sentinels: string[]; name: string } | undefined;
}

/** A client of any topology: ioredis's `Redis` (one server, or Sentinel) or its `Cluster`. */
export type SharedRedis = Redis | Cluster;

export interface OpenSharedRedisOptions {
  /** Timeout of every command and of each connection attempt, in ms. */
  timeoutMs: number;
  /**
   * `true` (default): fail closed and fast (no offline queue, no retry: a command while disconnected
   * fails at once). `false`: a long-lived subscriber that waits for its connection instead.
   */
  failFast?: boolean;
  connectionName?: string;
}

/** Describes where `topology` points, for messages (never with credentials). */
export function describeTopology(topology: RedisTopology): string {
  if (topology.cluster) return `Redis Cluster (${topology.cluster.nodes.map(hostPort).join(", ")})`;
  if (topology.sentinel)
    return `Redis Sentinel master "${topology.sentinel.name}" (${topology.sentinel.sentinels.map(hostPort).join(", ")})`;
  return `Redis ${hostPort(topology.url ?? "")}`;
}

/**
 * Opens an ioredis client for `topology`; ioredis is imported only here, when a Redis feature starts.
 * Fail-fast clients keep reconnecting in the background (a Cluster also follows MOVED and refreshes its
 * slots after a failover), so recovery needs no restart. Connection errors are left to each command.
 */
export async function openSharedRedis(
  topology: RedisTopology,
  options: OpenSharedRedisOptions,
): Promise<SharedRedis> {
  const { Redis, Cluster } = await import("ioredis");
  const failFast = options.failFast ?? true;
  const common: RedisOptions = {
    connectTimeout: options.timeoutMs,
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
    ...(failFast
      ? { commandTimeout: options.timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false }
      : { maxRetriesPerRequest: null, autoResubscribe: false }),
    // A master demoted by a failover answers READONLY: reconnect (to the new master); the command fails.
    reconnectOnError: (error) => error.message.startsWith("READONLY"),
  };
  // Commands issued in one turn of the event loop go out in one write (fewer syscalls for the ledger's
  // concurrent requests: docs/benchmarks.md). Not on a Cluster, whose auto-pipelines mishandle slot moves.
  const batched: RedisOptions = failFast ? { enableAutoPipelining: true } : {};
  let client: SharedRedis;
  if (topology.cluster) {
    const nodes = topology.cluster.nodes.map((node) => new URL(node));
    const first = nodes[0] as URL;
    const clusterOptions: ClusterOptions = {
      redisOptions: {
        ...common,
        ...credentials(first),
        ...(first.protocol === "rediss:" ? { tls: {} } : {}),
      },
      enableOfflineQueue: !failFast,
      // Between a master's failure and its replica's promotion the slots answer CLUSTERDOWN or MOVED:
      // a fail-fast client reports that (503) rather than holding the request.
      ...(failFast ? { retryDelayOnClusterDown: 0, retryDelayOnFailover: 0, retryDelayOnTryAgain: 0 } : {}),
      slotsRefreshTimeout: options.timeoutMs,
    };
    client = new Cluster(
      nodes.map((node) => ({ host: node.hostname, port: Number(node.port || 6379) })),
      clusterOptions,
    );
  } else if (topology.sentinel) {
    const sentinels = topology.sentinel.sentinels.map((sentinel) => new URL(sentinel));
    const first = sentinels[0] as URL;
    const auth = credentials(first);
    client = new Redis({
      ...common,
      ...batched,
      sentinels: sentinels.map((sentinel) => ({
        host: sentinel.hostname,
        port: Number(sentinel.port || 26379),
      })),
      name: topology.sentinel.name,
      ...(auth.password === undefined ? {} : { password: auth.password, sentinelPassword: auth.password }),
      ...(auth.username === undefined ? {} : { username: auth.username, sentinelUsername: auth.username }),
      ...(first.protocol === "rediss:" ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      // Reconnect as soon as the sentinels announce a new master, not when the old one times out.
      failoverDetector: true,
      // A sentinel that accepts and never answers (a frozen host) would hold every reconnection for good.
      sentinelCommandTimeout: options.timeoutMs,
    });
  } else {
    if (topology.url === undefined) throw new Error("a Redis topology needs url, cluster or sentinel");
    client = new Redis(topology.url, { ...common, ...batched });
  }
  // Every command reports its own failure; this only keeps ioredis from printing each reconnect error.
  client.on("error", () => undefined);
  reconnectAfterEnd(client);
  return client;
}

/** How long a client ioredis ended (without our asking) waits before it is connected again, in ms. */
export const RECONNECT_AFTER_END_MS = 100;

/** Clients being closed on purpose: their end is final. */
const closing = new WeakSet<SharedRedis>();

/**
 * Connects `client` again whenever ioredis ends it without `closeSharedRedis` asking: ioredis 5 ends a
 * Sentinel client for good when its failover detector hears `+switch-master` while the client is asking a
 * sentinel where the master is (a race a loaded machine wins often; docs/SCALING.md), and nothing would
 * ever reconnect it.
 */
function reconnectAfterEnd(client: SharedRedis): void {
  client.on("end", () => {
    if (closing.has(client)) return;
    setTimeout(() => {
      if (closing.has(client) || client.status !== "end") return;
      client.connect().catch(() => undefined);
    }, RECONNECT_AFTER_END_MS).unref();
  });
}

/** Waits (at most `timeoutMs`) while a connection is being made; rejects at once when there is none. */
export function whenRedisReady(redis: SharedRedis, timeoutMs: number): Promise<void> {
  const status = redis.status;
  if (status === "ready") return Promise.resolve();
  if (status !== "wait" && status !== "connecting" && status !== "connect") {
    return Promise.reject(new Error(`connection is ${status}`));
  }
  if (status === "wait") void redis.connect().catch(() => undefined);
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () => done(new Error("connection closed"));
    const timer = setTimeout(() => done(new Error(`not connected within ${timeoutMs} ms`)), timeoutMs);
    redis.once("ready", onReady);
    redis.once("close", onClose);
  });
}

/**
 * Closes a client for good: `QUIT`, then disconnect (which also ends a Sentinel client's failover
 * detector, whose sentinel connections `QUIT` alone leaves reconnecting).
 */
export async function closeSharedRedis(client: SharedRedis | undefined): Promise<void> {
  if (client === undefined) return;
  closing.add(client);
  await client.quit().catch(() => undefined);
  client.disconnect();
}

/** Whether `client` is a Redis Cluster client. */
export function isCluster(client: SharedRedis): client is Cluster {
  return (client as Cluster).isCluster === true;
}

function credentials(url: URL): { username?: string; password?: string } {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

function hostPort(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host;
  } catch {
    return "?";
  }
}

/**
 * `WAIT replicas timeoutMs` on the connection that wrote `key` (in a Cluster, its slot's master):
 * resolves with how many replicas acknowledged every write made on that connection so far.
 */
export async function waitForReplicas(
  client: SharedRedis,
  key: string,
  replicas: number,
  timeoutMs: number,
): Promise<number> {
  if (!isCluster(client)) return (await client.call("WAIT", replicas, timeoutMs)) as number;
  const { default: calculateSlot } = await import("cluster-key-slot");
  const owner = client.slots[calculateSlot(key)]?.[0];
  const node = client
    .nodes("master")
    .find((candidate) => `${candidate.options.host}:${candidate.options.port}` === owner);
  if (node === undefined) throw new Error(`no known master serves the slot of ${key}`);
  return (await node.call("WAIT", replicas, timeoutMs)) as number;
}
