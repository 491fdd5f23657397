import { SharedRedisClient } from "../../common/SharedRedisClient.js";
import type { RedisTopology, SharedRedis } from "../../common/openSharedRedis.js";
import { taggedPrefix } from "../../ledger/RedisPaymentLedger.js";
import {
  recordingKey,
  type InFlightBatch,
  type PayerToRecord,
  type QueuedRecording,
  type RecordingQueue,
  type RecordingQueueStats,
} from "./RecordingQueue.js";

export interface RedisRecordingQueueOptions extends RedisTopology {
  client?: SharedRedis;
  /** Prefix of every key, given a hash tag so that a Redis Cluster keeps them in one slot (default `x402:recorder:`). */
  keyPrefix?: string;
  commandTimeoutMs?: number;
}

// KEYS: item, due. ARGV: key, contract, payer, now.
const ENQUEUE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'contract', ARGV[2], 'payer', ARGV[3], 'state', 'pending', 'attempts', 0, 'due', ARGV[4], 'queued', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1`;

// KEYS: batch, due, sent, item… ARGV: hash, nonce, transaction, sentAt, key…
const MARK_SENT = `
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'nonce', ARGV[2], 'transaction', ARGV[3], 'sentAt', ARGV[4])
for i = 4, #KEYS do
  if redis.call('HGET', KEYS[i], 'state') == 'pending' then
    redis.call('HSET', KEYS[i], 'state', 'sent')
    redis.call('ZREM', KEYS[2], ARGV[i + 1])
    redis.call('SADD', KEYS[3], ARGV[i + 1])
  end
end
return 1`;

// KEYS: batch, due, sent, recorded, item… ARGV: now, key…
const MARK_DONE = `
for i = 5, #KEYS do
  if redis.call('HGET', KEYS[i], 'state') ~= 'done' then
    redis.call('HSET', KEYS[i], 'state', 'done', 'due', ARGV[1])
    redis.call('INCR', KEYS[4])
  end
  redis.call('ZREM', KEYS[2], ARGV[i - 3])
  redis.call('SREM', KEYS[3], ARGV[i - 3])
end
if redis.call('SCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[1]) end
return 1`;

// KEYS: batch, due, sent, item… ARGV: dueAt, error, key…
const RESCHEDULE = `
for i = 4, #KEYS do
  local state = redis.call('HGET', KEYS[i], 'state')
  if state and state ~= 'done' then
    redis.call('HSET', KEYS[i], 'state', 'pending', 'due', ARGV[1], 'error', ARGV[2])
    redis.call('HINCRBY', KEYS[i], 'attempts', 1)
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i - 1])
    redis.call('SREM', KEYS[3], ARGV[i - 1])
  end
end
if redis.call('SCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[1]) end
return 1`;

// KEYS: lock. ARGV: owner, ms.
const LEASE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

/**
 * The recorder's queue in Redis (one server, Cluster or Sentinel), for gateways that share their ledger:
 * any of them queues a payer, the one holding the lease writes. Every key carries one hash tag, so each
 * script's keys are in one Cluster slot.
 */
export class RedisRecordingQueue implements RecordingQueue {
  private readonly client: SharedRedisClient;
  private readonly base: string;

  constructor(options: RedisRecordingQueueOptions) {
    if (!options.client && !options.url && !options.cluster && !options.sentinel) {
      throw new Error("RedisRecordingQueue needs `url`, `cluster`, `sentinel` or `client`");
    }
    this.client = new SharedRedisClient(options.client ?? options, {
      timeoutMs: options.commandTimeoutMs ?? 2_000,
    });
    this.base = taggedPrefix(options.keyPrefix ?? "x402:recorder:");
  }

  private keys(recordingKeys: readonly string[] = []) {
    const base = this.base;
    return {
      due: `${base}due`,
      sent: `${base}sent`,
      batch: `${base}batch`,
      recorded: `${base}recorded`,
      lock: `${base}lock`,
      items: recordingKeys.map((key) => `${base}item:${key}`),
    };
  }

  async enqueue(recording: PayerToRecord, now: number): Promise<boolean> {
    const redis = await this.client.ready();
    const key = recordingKey(recording);
    const k = this.keys([key]);
    const added = await redis.eval(
      ENQUEUE,
      2,
      k.items[0]!,
      k.due,
      key,
      recording.contract,
      recording.payer,
      now,
    );
    return added === 1;
  }

  async due(now: number, limit: number): Promise<QueuedRecording[]> {
    const redis = await this.client.ready();
    const keys = await redis.zrangebyscore(this.keys().due, "-inf", now, "LIMIT", 0, limit);
    return this.read(redis, keys);
  }

  private async read(redis: SharedRedis, keys: string[]): Promise<QueuedRecording[]> {
    const items = this.keys(keys).items;
    const rows = await Promise.all(
      items.map((item) => redis.hmget(item, "contract", "payer", "attempts", "due")),
    );
    return rows.flatMap(([contract, payer, attempts, due], index) =>
      contract && payer
        ? [{ key: keys[index]!, contract, payer, attempts: Number(attempts ?? 0), dueAt: Number(due ?? 0) }]
        : [],
    );
  }

  async inFlight(): Promise<InFlightBatch | undefined> {
    const redis = await this.client.ready();
    const k = this.keys();
    const [hash, nonce, transaction, sentAt] = await redis.hmget(
      k.batch,
      "hash",
      "nonce",
      "transaction",
      "sentAt",
    );
    if (!hash || !nonce || !transaction) return undefined;
    const recordings = await this.read(redis, await redis.smembers(k.sent));
    return { hash, nonce, transaction, sentAt: Number(sentAt ?? 0), recordings };
  }

  async markSent(batch: Omit<InFlightBatch, "recordings">, keys: readonly string[]): Promise<void> {
    const redis = await this.client.ready();
    const k = this.keys(keys);
    await redis.eval(
      MARK_SENT,
      3 + keys.length,
      k.batch,
      k.due,
      k.sent,
      ...k.items,
      batch.hash,
      batch.nonce,
      batch.transaction,
      batch.sentAt,
      ...keys,
    );
  }

  async markDone(keys: readonly string[], now: number): Promise<void> {
    const redis = await this.client.ready();
    const k = this.keys(keys);
    await redis.eval(
      MARK_DONE,
      4 + keys.length,
      k.batch,
      k.due,
      k.sent,
      k.recorded,
      ...k.items,
      now,
      ...keys,
    );
  }

  async reschedule(keys: readonly string[], dueAt: number, error: string): Promise<void> {
    const redis = await this.client.ready();
    const k = this.keys(keys);
    await redis.eval(
      RESCHEDULE,
      3 + keys.length,
      k.batch,
      k.due,
      k.sent,
      ...k.items,
      dueAt,
      error.slice(0, 500),
      ...keys,
    );
  }

  async lease(owner: string, leaseMs: number): Promise<boolean> {
    const redis = await this.client.ready();
    return (await redis.eval(LEASE, 1, this.keys().lock, owner, leaseMs)) === 1;
  }

  async stats(): Promise<RecordingQueueStats> {
    const redis = await this.client.ready();
    const k = this.keys();
    const [pending, inFlight, recorded, oldest] = await Promise.all([
      redis.zcard(k.due),
      redis.scard(k.sent),
      redis.get(k.recorded),
      redis.zrange(k.due, 0, 0, "WITHSCORES"),
    ]);
    const oldestKey = oldest[0];
    const since =
      oldestKey === undefined ? null : await redis.hget(this.keys([oldestKey]).items[0]!, "queued");
    return {
      pending,
      inFlight,
      recorded: Number(recorded ?? 0),
      ...(since ? { oldestPendingSince: Number(since) } : {}),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
