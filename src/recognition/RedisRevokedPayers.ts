import { randomUUID } from "../common/digests.js";
import type { Logger } from "../common/Logger.js";
import { silentLogger } from "../common/Logger.js";
import {
  closeSharedRedis,
  openSharedRedis,
  type RedisTopology,
  type SharedRedis,
} from "../common/openSharedRedis.js";
import { SharedRedisClient } from "../common/SharedRedisClient.js";
import { MemoryRevokedPayers } from "./MemoryRevokedPayers.js";
import { RevocationUnavailableError } from "./RevocationUnavailableError.js";
import {
  revocationKey,
  type Revocation,
  type RevocationListener,
  type RevocationObserver,
  type RevokedPayers,
} from "./RevokedPayers.js";
import { REVOCATION_DEFAULTS } from "./revocationSettings.js";

export interface RedisRevokedPayersOptions extends RedisTopology {
  /** `redis://` or `rediss://` URL: the ledger's (or its `cluster` or `sentinel`). */
  url?: string | undefined;
  /** Prefix of the sorted set `{prefix}payers` and the channel `{prefix}events`. */
  keyPrefix?: string;
  /** How long a revoked payer stays denied, in ms. */
  holdMs?: number;
  /** Timeout of each Redis command (and of waiting for a connection), in ms. */
  commandTimeoutMs?: number;
  /** Clock, epoch ms. */
  now?: () => number;
  logger?: Logger;
  observer?: RevocationObserver;
}

/**
 * Keep the longer of two revocations of one payer, drop expired ones, let the set expire with its last
 * member, and tell every instance; answers until when the payer is now denied.
 * KEYS[1] the set; ARGV: payer, until, now, channel, message.
 */
const REVOKE_SCRIPT = `
local current = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not current or tonumber(current) < tonumber(ARGV[2]) then
  redis.call("ZADD", KEYS[1], ARGV[2], ARGV[1])
end
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[3])
local last = redis.call("ZRANGE", KEYS[1], -1, -1, "WITHSCORES")
redis.call("PEXPIREAT", KEYS[1], last[2])
redis.call("PUBLISH", ARGV[4], ARGV[5])
return redis.call("ZSCORE", KEYS[1], ARGV[1])
`;

interface RevocationMessage {
  payer: string;
  until: number;
  /** The instance that published it (it has applied it already). */
  from: string;
}

/**
 * Revoked payers shared by every gateway instance on one Redis: a sorted set (payer → until, epoch ms)
 * is the truth, and a publish tells every instance to drop the payer from its caches at once.
 *
 * Fail closed: `revoke` rejects with {@link RevocationUnavailableError} when Redis cannot take it (the
 * payer is still denied here); `isRevoked` asks the set for every payer not already known denied, and
 * rejects when Redis cannot answer, which the recognition cache turns into "not recognized". On every
 * (re)subscription the instance reloads the set and clears its caches, so a missed message cannot
 * leave a revoked payer admitted.
 */
export class RedisRevokedPayers implements RevokedPayers {
  private readonly topology: RedisTopology;
  private readonly client: SharedRedisClient;
  private subscriber: Promise<SharedRedis | undefined> | undefined;
  private readonly local: MemoryRevokedPayers;
  private readonly prefix: string;
  private readonly setKey: string;
  private readonly channel: string;
  private readonly holdMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly observer: RevocationObserver | undefined;
  private readonly instance = randomUUID();
  /** Subscriptions made so far (the first, then one per reconnection). */
  private subscriptions = 0;

  constructor(options: RedisRevokedPayersOptions) {
    this.topology = { url: options.url, cluster: options.cluster, sentinel: options.sentinel };
    this.timeoutMs = options.commandTimeoutMs ?? 2_000;
    this.client = new SharedRedisClient(this.topology, { timeoutMs: this.timeoutMs });
    this.prefix = options.keyPrefix ?? REVOCATION_DEFAULTS.keyPrefix;
    this.setKey = `${this.prefix}payers`;
    this.channel = `${this.prefix}events`;
    this.holdMs = options.holdMs ?? REVOCATION_DEFAULTS.holdMs;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.observer = options.observer;
    this.local = new MemoryRevokedPayers({ now: this.now });
  }

  async revoke(payer: string, options: { reason?: string; until?: number } = {}): Promise<Revocation> {
    const key = revocationKey(payer);
    const until = options.until ?? this.now() + this.holdMs;
    // Denied here first: whatever Redis does, this instance no longer admits the payer.
    this.local.apply(key, until);
    const message: RevocationMessage = { payer: key, until, from: this.instance };
    let kept: number;
    try {
      const redis = await this.ready();
      const score = (await redis.eval(
        REVOKE_SCRIPT,
        1,
        this.setKey,
        key,
        String(until),
        String(this.now()),
        this.channel,
        JSON.stringify(message),
      )) as string | null;
      kept = Number(score ?? until);
    } catch (cause) {
      this.observer?.revocation?.("local", "failed");
      throw new RevocationUnavailableError(
        `Redis could not take the revocation: ${(cause as Error).message}; the payer is denied on this instance only, retry`,
        { cause, details: { payer: key } },
      );
    }
    this.local.apply(key, kept);
    this.observer?.revocation?.("local", "applied");
    const revocation: Revocation = { payer: key, until: kept };
    return options.reason === undefined ? revocation : { ...revocation, reason: options.reason };
  }

  deniedHere(payer: string): boolean {
    return this.local.deniedHere(payer);
  }

  async isRevoked(payer: string): Promise<boolean> {
    if (this.local.deniedHere(payer)) return true;
    const redis = await this.ready();
    const score = await redis.zscore(this.setKey, payer);
    if (score === null || Number(score) <= this.now()) return false;
    // Missed by this instance (a message lost while unsubscribed): learn it now.
    this.local.apply(payer, Number(score));
    return true;
  }

  serve(listener: RevocationListener): void {
    this.local.serve(listener);
    this.subscribe();
  }

  /** Payers this instance knows denied (the mirror of the set). */
  list(): Revocation[] {
    return this.local.list();
  }

  async close(): Promise<void> {
    await this.local.close();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    await Promise.all([subscriber?.then(closeSharedRedis, () => undefined), this.client.close()]);
  }

  private ready(): Promise<SharedRedis> {
    return this.client.ready();
  }

  /** Listen for revocations made elsewhere (once); on every (re)connection, resubscribe and reload. */
  private subscribe(): void {
    if (this.subscriber !== undefined) return;
    // A subscriber of its own (a subscribed connection takes no other commands); it retries forever.
    this.subscriber = openSharedRedis(this.topology, {
      timeoutMs: this.timeoutMs,
      failFast: false,
      connectionName: `${this.prefix}subscriber:${this.instance}`,
    }).then(
      (subscriber) => {
        this.listen(subscriber);
        return subscriber;
      },
      (error: Error) => {
        this.logger.warn(
          { event: "revocation_subscriber_error", err: error.message },
          "Redis revocation subscriber could not be opened; sign-ins are checked against Redis",
        );
        return undefined;
      },
    );
  }

  private listen(subscriber: SharedRedis): void {
    // Once per outage: ioredis reports every reconnect attempt.
    let reported = false;
    subscriber.on("error", (error: Error) => {
      if (reported) return;
      reported = true;
      this.logger.warn(
        { event: "revocation_subscriber_error", err: error.message },
        "Redis revocation subscriber lost; sign-ins are checked against Redis until it is back",
      );
    });
    subscriber.on("message", (channel: string, text: string) => {
      if (channel === this.channel) this.hear(text);
    });
    subscriber.on("ready", () => {
      reported = false;
      void this.resubscribe(subscriber);
    });
  }

  private async resubscribe(subscriber: SharedRedis): Promise<void> {
    try {
      await subscriber.subscribe(this.channel);
      const entries = await this.loadSet();
      // Each revoked payer is dropped from the caches as it is applied.
      for (const { payer, until } of entries) this.local.apply(payer, until);
      // Resubscribed: messages may have been lost while this instance was not listening, so forget
      // every cached answer too (the first subscription has nothing cached from before it to doubt).
      if (this.subscriptions > 0) this.local.clearListeners();
      this.subscriptions += 1;
      this.logger.info(
        { event: "revocations_loaded", revoked: entries.length },
        "revocations subscribed and reloaded",
      );
    } catch (error) {
      this.logger.warn(
        { event: "revocation_reload_failed", err: (error as Error).message },
        "could not subscribe to revocations or reload them; sign-ins are checked against Redis meanwhile",
      );
    }
  }

  private async loadSet(): Promise<Revocation[]> {
    const redis = await this.ready();
    const flat = await redis.zrangebyscore(this.setKey, `(${this.now()}`, "+inf", "WITHSCORES");
    const entries: Revocation[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      entries.push({ payer: flat[i] as string, until: Number(flat[i + 1]) });
    }
    return entries;
  }

  private hear(text: string): void {
    let message: Partial<RevocationMessage>;
    try {
      message = JSON.parse(text) as Partial<RevocationMessage>;
    } catch {
      message = {};
    }
    const { payer, until, from } = message;
    if (typeof payer !== "string" || typeof until !== "number" || !Number.isFinite(until)) {
      this.logger.warn({ event: "revocation_message_invalid" }, "ignored a malformed revocation message");
      return;
    }
    if (from === this.instance) return;
    this.local.apply(revocationKey(payer), until);
    this.observer?.revocation?.("peer", "applied");
    this.logger.info({ event: "revocation_heard", payer: revocationKey(payer) }, "payer revoked elsewhere");
  }
}
