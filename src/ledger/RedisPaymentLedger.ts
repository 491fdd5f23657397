import { randomUUID } from "../common/digests.js";
import {
  isCluster,
  waitForReplicas,
  type RedisTopology,
  type SharedRedis,
} from "../common/openSharedRedis.js";
import { SharedRedisClient } from "../common/SharedRedisClient.js";
import { base64OfBytes, bytesOfBase64 } from "../common/bytes.js";

import { BaseError } from "../common/BaseError.js";
import type { LedgerWait } from "./ledgerSettings.js";
import type {
  GrantCharge,
  GrantChargeOutcome,
  KeptResponse,
  LedgerHealth,
  PassRecord,
  PassUse,
  PaymentLedger,
  ReserveOutcome,
} from "./PaymentLedger.js";
import { redisFailureReason } from "./redisFailureReason.js";
import {
  CHARGE_SCRIPT,
  END_PASSES_SCRIPT,
  OPEN_PASS_SCRIPT,
  RELEASE_SCRIPT,
  USE_PASS_SCRIPT,
} from "./redisLedgerScripts.js";

export interface RedisPaymentLedgerOptions extends RedisTopology {
  /** An ioredis client to use instead of `url` / `cluster` / `sentinel` (not closed by `close()`). */
  client?: SharedRedis;
  /** Prefix of every key; instances that share payments share it. */
  keyPrefix?: string;
  /** Timeout of each Redis command (and of waiting for the first connection), in ms. */
  commandTimeoutMs?: number;
  /**
   * `WAIT` for replicas after a reservation, a grant charge and a spent mark (default off). A reservation
   * or charge not acknowledged in time fails with {@link LedgerUnavailableError} (and is undone).
   */
  wait?: LedgerWait;
  /** Told how long each `WAIT` took and whether enough replicas acknowledged it. */
  onWait?: (operation: LedgerWaitOperation, ms: number, acknowledged: boolean) => void;
}

/** The writes a ledger may `WAIT` on. */
export type LedgerWaitOperation = "reserve" | "charge" | "spend";

/** Thrown when Redis cannot answer in time: the paywall fails closed with `503 ledger_unavailable`. */
export class LedgerUnavailableError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("ledger_unavailable", message, { cause: options.cause, docsPath: "docs/errors.md" });
  }
}

/**
 * The keys of a ledger under `prefix`. In a Redis Cluster every key carries one hash tag (the prefix's
 * own `{…}`, else the whole prefix in braces), so every script's keys (a payment, its charge record and
 * the grants it charges, named inside the script) hash to one slot.
 */
export function ledgerKeys(prefix: string, cluster: boolean) {
  const base = cluster ? taggedPrefix(prefix) : prefix;
  return {
    payment: (id: string) => base + id,
    charge: (id: string) => base + CHARGE + id,
    kept: (identifier: string) => base + KEPT + identifier,
    grantPrefix: base + GRANT,
    passPrefix: base + PASS,
    passOf: (scope: string, payer: string) => `${base}${PASS_OF}${scope}:${payer}`,
    passesOf: (payer: string) => base + PASSES_OF + payer,
  };
}

/**
 * `prefix` with a hash tag: its own `{…}` when it has one; else the prefix in braces
 * (`x402:payment:` → `{x402:payment:}`); a prefix with stray braces (which would end a tag early) or an
 * empty one gets a tag of its text without braces (or `x402`) before it.
 */
export function taggedPrefix(prefix: string): string {
  if (hasHashTag(prefix)) return prefix;
  const plain = prefix.replace(/[{}]/g, "");
  if (plain === prefix && plain !== "") return `{${prefix}}`;
  return `{${plain || "x402"}}${prefix}`;
}

/** Whether Redis Cluster would hash `key` by a tag: a `{` followed later by a `}` with something between. */
function hasHashTag(key: string): boolean {
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  return close > open + 1;
}

const RESERVED = "r:";
/** The id whose key `health()` reads: never a payment's (those are hex digests). */
const HEALTH_ID = "health-check";
const SPENT = "s:";

const CHARGE = "charge:";
const KEPT = "kept:";
const GRANT = "grant:";
const PASS = "pass:";
const PASS_OF = "passof:";
const PASSES_OF = "passes:";

/**
 * The payment ledger shared by several gateway instances: a reservation is `SET NX PX` (atomic across
 * instances), a release deletes only its own reservation, a spent mark lives until `keepUntilMs`. On one
 * Redis, a Redis Cluster (one hash tag per ledger: see {@link ledgerKeys}) or a Sentinel-watched master.
 */
export class RedisPaymentLedger implements PaymentLedger {
  private readonly client: SharedRedisClient;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly wait: LedgerWait;
  private readonly onWait: RedisPaymentLedgerOptions["onWait"];

  constructor(options: RedisPaymentLedgerOptions) {
    if (!options.client && !options.url && !options.cluster && !options.sentinel)
      throw new Error("RedisPaymentLedger needs `url`, `cluster`, `sentinel` or `client`");
    this.timeoutMs = options.commandTimeoutMs ?? 2_000;
    this.client = new SharedRedisClient(options.client ?? options, { timeoutMs: this.timeoutMs });
    this.prefix = options.keyPrefix ?? "x402:payment:";
    this.wait = options.wait ?? false;
    this.onWait = options.onWait;
  }

  async reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome> {
    const token = randomUUID();
    let keys: ReturnType<typeof ledgerKeys> | undefined;
    try {
      return await this.command("reserve", async (redis) => {
        keys = this.keysOf(redis);
        const key = keys.payment(id);
        const set = await redis.set(key, RESERVED + token, "PX", Math.max(1, options.holdMs), "NX");
        if (set === "OK") {
          await this.replicate(redis, key, "reserve");
          return { status: "reserved", token } as const;
        }
        const current = await redis.get(key);
        return current?.startsWith(SPENT)
          ? ({ status: "spent" } as const)
          : ({ status: "in_progress" } as const);
      });
    } catch (error) {
      // A timed-out SET may still run when a slow Redis catches up (or was not acknowledged by a
      // replica): undo it (queued behind it), so the payment is not stuck as "in progress" until the
      // hold expires.
      if (keys) {
        void this.client
          .get()
          .then((redis) => this.releaseScript(redis, id, token))
          .catch(() => undefined); // Redis is away: the reservation expires with its hold.
      }
      throw error;
    }
  }

  release(id: string, token: string): Promise<void> {
    return this.command("release", (redis) => this.releaseScript(redis, id, token));
  }

  spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    return this.command("spend", async (redis) => {
      const keys = this.keysOf(redis);
      // Settled: the grants' charge (if any) is final, its record no longer needed. Both commands go in one
      // turn, so in one round trip (and one write, auto-pipelined). No MULTI/EXEC: the record only ever
      // refunds a reservation still held by its token, which the spent mark has already replaced, so a record
      // left by a failed DEL refunds nothing and expires.
      const marked = redis.set(
        keys.payment(id),
        SPENT + token,
        "PXAT",
        Math.max(options.keepUntilMs, Date.now() + 1),
      );
      redis.del(keys.charge(id)).catch(() => undefined);
      await marked;
      await this.replicate(redis, keys.payment(id), "spend");
    });
  }

  chargeGrants(id: string, charge: GrantCharge): Promise<GrantChargeOutcome> {
    return this.command("charge the delegation grants of", async (redis) => {
      const keys = this.keysOf(redis);
      const floor = Date.now() + 1;
      const keepUntil = charge.grants.map((grant) => Math.max(grant.keepUntilMs, floor));
      const result = (await redis.eval(
        CHARGE_SCRIPT,
        1 + charge.grants.length,
        keys.charge(id),
        ...charge.grants.map((grant) => keys.grantPrefix + grant.id),
        charge.amount.toString(),
        Math.max(...keepUntil),
        ...charge.grants.flatMap((grant, i) => [grant.cap.toString(), keepUntil[i] as number, grant.id]),
      )) as [string, string?, string?];
      if (result[0] === "charged") {
        await this.replicate(redis, keys.charge(id), "charge");
        return { status: "charged" } as const;
      }
      const grant = charge.grants[Number(result[1])];
      if (grant === undefined)
        throw new Error(`unexpected answer from the charge script: ${result.join(" ")}`);
      return {
        status: "cap_exceeded",
        grantId: grant.id,
        spent: BigInt(result[2] ?? "0"),
        cap: grant.cap,
      } as const;
    });
  }

  /** Kept for every instance: `SET NX PX` (the first response kept under an identifier stays). */
  keepResponse(identifier: string, response: KeptResponse, ttlMs: number): Promise<void> {
    return this.command("keep the response of", async (redis) => {
      const value = JSON.stringify({
        payment: response.payment,
        status: response.status,
        headers: response.headers,
        body: base64OfBytes(response.body),
        receipt: response.receipt,
      });
      await redis.set(this.keysOf(redis).kept(identifier), value, "PX", Math.max(1, ttlMs), "NX");
    });
  }

  keptResponse(identifier: string): Promise<KeptResponse | undefined> {
    return this.command("read the kept response of", async (redis) => {
      const value = await redis.get(this.keysOf(redis).kept(identifier));
      if (value === null) return undefined;
      const kept = JSON.parse(value) as Omit<KeptResponse, "body"> & { body: string };
      return { ...kept, body: bytesOfBase64(kept.body) };
    });
  }

  openPass(pass: PassRecord): Promise<void> {
    return this.command("open the pass of", async (redis) => {
      const keys = this.keysOf(redis);
      const now = Date.now();
      await redis.eval(
        OPEN_PASS_SCRIPT,
        3,
        keys.passPrefix + pass.id,
        keys.passOf(pass.scope, pass.payer),
        keys.passesOf(pass.payer),
        pass.credits ?? -1,
        Math.max(pass.expiresAtMs, now + 1),
        pass.id,
        now,
      );
    });
  }

  usePass(id: string): Promise<PassUse> {
    return this.command("use the pass of", async (redis) => {
      const left = Number(await redis.eval(USE_PASS_SCRIPT, 1, this.keysOf(redis).passPrefix + id));
      if (left >= 0) return { status: "used", remaining: left } as const;
      if (left === -1) return { status: "used", remaining: undefined } as const;
      return left === -3 ? ({ status: "used_up" } as const) : ({ status: "unknown" } as const);
    });
  }

  passOf(scope: string, payer: string): Promise<string | undefined> {
    return this.command("find the pass of", async (redis) => {
      const id = await redis.get(this.keysOf(redis).passOf(scope, payer));
      return id ?? undefined;
    });
  }

  endPasses(payer: string): Promise<number> {
    return this.command("end the passes of", async (redis) => {
      const keys = this.keysOf(redis);
      return Number(await redis.eval(END_PASSES_SCRIPT, 1, keys.passesOf(payer), keys.passPrefix));
    });
  }

  /**
   * `EXISTS` of a key of the ledger's own (in a Cluster, on the master of the ledger's slot) over its
   * connection, within `timeoutMs`: what every paid request needs first.
   */
  async health(timeoutMs: number): Promise<LedgerHealth> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([
        late,
        this.client.ready().then((redis) => redis.exists(this.keysOf(redis).payment(HEALTH_ID))),
      ]);
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: redisFailureReason(error), detail: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  private keysOf(redis: SharedRedis): ReturnType<typeof ledgerKeys> {
    return ledgerKeys(this.prefix, isCluster(redis));
  }

  /** `WAIT` until the configured replicas have every write made so far on `key`'s connection. */
  private async replicate(redis: SharedRedis, key: string, operation: LedgerWaitOperation): Promise<void> {
    if (this.wait === false) return;
    const started = performance.now();
    const acknowledged = await waitForReplicas(redis, key, this.wait.replicas, this.wait.timeoutMs);
    const enough = acknowledged >= this.wait.replicas;
    this.onWait?.(operation, performance.now() - started, enough);
    if (!enough) {
      throw new Error(
        `WAIT: ${acknowledged} of ${this.wait.replicas} replicas acknowledged within ${this.wait.timeoutMs} ms`,
      );
    }
  }

  /** Deletes `id`'s reservation if `token` still holds it, giving back its grants' charge. */
  private async releaseScript(redis: SharedRedis, id: string, token: string): Promise<void> {
    const keys = this.keysOf(redis);
    await redis.eval(
      RELEASE_SCRIPT,
      2,
      keys.payment(id),
      keys.charge(id),
      RESERVED + token,
      keys.grantPrefix,
    );
  }

  /** Runs `run` once connected; any Redis failure becomes a {@link LedgerUnavailableError}. */
  private async command<T>(operation: string, run: (redis: SharedRedis) => Promise<T>): Promise<T> {
    try {
      return await run(await this.client.ready());
    } catch (error) {
      throw new LedgerUnavailableError(
        `Redis could not ${operation} the payment: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
