import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { openFailFastRedis, whenRedisReady } from "../common/openFailFastRedis.js";
import { BaseError } from "../common/BaseError.js";
import type { GrantCharge, GrantChargeOutcome, PaymentLedger, ReserveOutcome } from "./PaymentLedger.js";

export interface RedisPaymentLedgerOptions {
  /** `redis://host:port/db`; or pass `client`. */
  url?: string;
  /** An ioredis client to use (not closed by `close()`). */
  client?: Redis;
  /** Prefix of every key; instances that share payments share it. */
  keyPrefix?: string;
  /** Timeout of each Redis command (and of waiting for the first connection), in ms. */
  commandTimeoutMs?: number;
}

/** Thrown when Redis cannot answer in time: the paywall fails closed with `503 ledger_unavailable`. */
export class LedgerUnavailableError extends BaseError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("ledger_unavailable", message, { cause: options.cause, docsPath: "docs/errors.md" });
  }
}

const RESERVED = "r:";
const SPENT = "s:";

const CHARGE = "charge:";
const GRANT = "grant:";

/**
 * Exact arithmetic on decimal strings (amounts are up to 64 bits, their sums more: past what Redis
 * integers and Lua numbers hold exactly). Non-negative, no leading zeros.
 */
const DECIMALS = `
local function cmp(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end
local function add(a, b)
  local out, carry, i, j = {}, 0, #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local d = carry + (i > 0 and a:byte(i) - 48 or 0) + (j > 0 and b:byte(j) - 48 or 0)
    out[#out + 1] = string.char(48 + d % 10)
    carry = math.floor(d / 10)
    i, j = i - 1, j - 1
  end
  return string.reverse(table.concat(out))
end
local function sub(a, b)
  if cmp(a, b) <= 0 then return "0" end
  local out, borrow, i, j = {}, 0, #a, #b
  while i > 0 do
    local d = (a:byte(i) - 48) - borrow - (j > 0 and b:byte(j) - 48 or 0)
    if d < 0 then d, borrow = d + 10, 1 else borrow = 0 end
    out[#out + 1] = string.char(48 + d)
    i, j = i - 1, j - 1
  end
  local s = string.reverse(table.concat(out)):gsub("^0+", "")
  return s
end
`;

/**
 * Give back payment KEYS[2]'s charge to its grants (ARGV[2] = grant key prefix): the charge is
 * "amount grantId…"; each grant's total drops by the amount, keeping its expiry.
 */
const REFUND = `
local charge = redis.call("GET", KEYS[2])
if charge then
  local amount = nil
  for word in string.gmatch(charge, "%S+") do
    if amount == nil then amount = word else
      local key = ARGV[2] .. word
      local spent = redis.call("GET", key)
      if spent then redis.call("SET", key, sub(spent, amount), "KEEPTTL") end
    end
  end
  redis.call("DEL", KEYS[2])
end
`;

/** Delete the reservation KEYS[1] only while it still holds ARGV[1], giving back its grants' charge. */
const RELEASE_SCRIPT = `${DECIMALS}
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
${REFUND}
return 1`;

/**
 * Charge payment KEYS[1] (its charge record) ARGV[1] against grants KEYS[2…], all or none.
 * ARGV[2] = the record's expiry (epoch ms); then per grant: cap, expiry (epoch ms), id.
 * Returns {"charged"} or {"cap_exceeded", grant index (0-based), spent so far}.
 */
const CHARGE_SCRIPT = `${DECIMALS}
if redis.call("EXISTS", KEYS[1]) == 1 then return {"charged"} end
local amount = ARGV[1]
local ids = {amount}
for i = 2, #KEYS do
  local spent = redis.call("GET", KEYS[i]) or "0"
  if cmp(add(spent, amount), ARGV[3 * i - 3]) > 0 then return {"cap_exceeded", tostring(i - 2), spent} end
end
for i = 2, #KEYS do
  local spent = redis.call("GET", KEYS[i]) or "0"
  redis.call("SET", KEYS[i], add(spent, amount), "PXAT", ARGV[3 * i - 2])
  ids[#ids + 1] = ARGV[3 * i - 1]
end
redis.call("SET", KEYS[1], table.concat(ids, " "), "PXAT", ARGV[2])
return {"charged"}`;

/**
 * The payment ledger shared by several gateway instances: a reservation is `SET NX PX` (atomic across
 * instances), a release deletes only its own reservation, a spent mark lives until `keepUntilMs`.
 */
export class RedisPaymentLedger implements PaymentLedger {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(options: RedisPaymentLedgerOptions) {
    if (!options.client && !options.url) throw new Error("RedisPaymentLedger needs `url` or `client`");
    this.ownsClient = !options.client;
    this.timeoutMs = options.commandTimeoutMs ?? 2_000;
    this.redis = options.client ?? openFailFastRedis(options.url as string, this.timeoutMs);
    this.prefix = options.keyPrefix ?? "x402:payment:";
  }

  async reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome> {
    const key = this.prefix + id;
    const token = randomUUID();
    try {
      return await this.command("reserve", async () => {
        const set = await this.redis.set(key, RESERVED + token, "PX", Math.max(1, options.holdMs), "NX");
        if (set === "OK") return { status: "reserved", token } as const;
        const current = await this.redis.get(key);
        return current?.startsWith(SPENT)
          ? ({ status: "spent" } as const)
          : ({ status: "in_progress" } as const);
      });
    } catch (error) {
      // A timed-out SET may still run when a slow Redis catches up: undo it (queued behind it), so the
      // payment is not stuck as "in progress" until the hold expires.
      void this.redis
        .eval(RELEASE_SCRIPT, 2, key, this.chargeKey(id), RESERVED + token, this.prefix + GRANT)
        .catch(() => undefined);
      throw error;
    }
  }

  release(id: string, token: string): Promise<void> {
    return this.command("release", async () => {
      await this.redis.eval(
        RELEASE_SCRIPT,
        2,
        this.prefix + id,
        this.chargeKey(id),
        RESERVED + token,
        this.prefix + GRANT,
      );
    });
  }

  spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void> {
    return this.command("spend", async () => {
      // Settled: the grants' charge (if any) is final, its record no longer needed.
      await this.redis
        .multi()
        .set(this.prefix + id, SPENT + token, "PXAT", Math.max(options.keepUntilMs, Date.now() + 1))
        .del(this.chargeKey(id))
        .exec();
    });
  }

  chargeGrants(id: string, charge: GrantCharge): Promise<GrantChargeOutcome> {
    return this.command("charge the delegation grants of", async () => {
      const floor = Date.now() + 1;
      const keepUntil = charge.grants.map((grant) => Math.max(grant.keepUntilMs, floor));
      const result = (await this.redis.eval(
        CHARGE_SCRIPT,
        1 + charge.grants.length,
        this.chargeKey(id),
        ...charge.grants.map((grant) => this.prefix + GRANT + grant.id),
        charge.amount.toString(),
        Math.max(...keepUntil),
        ...charge.grants.flatMap((grant, i) => [grant.cap.toString(), keepUntil[i] as number, grant.id]),
      )) as [string, string?, string?];
      if (result[0] === "charged") return { status: "charged" } as const;
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

  private chargeKey(id: string): string {
    return this.prefix + CHARGE + id;
  }

  /** Runs `run` once connected; any Redis failure becomes a {@link LedgerUnavailableError}. */
  private async command<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      await whenRedisReady(this.redis, this.timeoutMs);
      return await run();
    } catch (error) {
      throw new LedgerUnavailableError(
        `Redis could not ${operation} the payment: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit();
  }
}
