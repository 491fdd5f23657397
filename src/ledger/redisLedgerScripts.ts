/**
 * The Lua scripts of `RedisPaymentLedger`: each runs atomically on the one slot its keys hash to (see
 * `ledgerKeys`). Key and argument layouts are documented on each.
 */
/**
 * Open pass KEYS[1] with ARGV[1] credits (-1: counted by time) until ARGV[2] (epoch ms); index it as the
 * payer's pass on its scope (KEYS[2] → id ARGV[3]) and among the payer's passes (set KEYS[3], kept as long
 * as its longest pass; ARGV[4] = now, epoch ms).
 */
export const OPEN_PASS_SCRIPT = `
redis.call("SET", KEYS[1], ARGV[1], "PXAT", ARGV[2])
redis.call("SET", KEYS[2], ARGV[3], "PXAT", ARGV[2])
redis.call("SADD", KEYS[3], ARGV[3])
local ttl = redis.call("PTTL", KEYS[3])
if ttl < 0 or tonumber(ARGV[4]) + ttl < tonumber(ARGV[2]) then redis.call("PEXPIREAT", KEYS[3], ARGV[2]) end
return 1`;

/** Spend one credit of pass KEYS[1]: the credits left, -1 (counted by time), -2 (no such pass), -3 (used up). */
export const USE_PASS_SCRIPT = `
local credits = redis.call("GET", KEYS[1])
if not credits then return -2 end
local n = tonumber(credits)
if n < 0 then return -1 end
if n == 0 then return -3 end
return redis.call("DECR", KEYS[1])`;

/** End every pass in set KEYS[1] (ARGV[1] = the pass key prefix) and the set; returns how many were live. */
export const END_PASSES_SCRIPT = `
local ended = 0
for _, id in ipairs(redis.call("SMEMBERS", KEYS[1])) do
  ended = ended + redis.call("DEL", ARGV[1] .. id)
end
redis.call("DEL", KEYS[1])
return ended`;

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
export const RELEASE_SCRIPT = `${DECIMALS}
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
${REFUND}
return 1`;

/**
 * Charge payment KEYS[1] (its charge record) ARGV[1] against grants KEYS[2…], all or none.
 * ARGV[2] = the record's expiry (epoch ms); then per grant: cap, expiry (epoch ms), id.
 * Returns {"charged"} or {"cap_exceeded", grant index (0-based), spent so far}.
 */
export const CHARGE_SCRIPT = `${DECIMALS}
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
