import calculateSlot from "cluster-key-slot";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ledgerKeys } from "../../src/ledger/RedisPaymentLedger.js";
import { redisKeyPrefixes } from "../../src/recognition/redisKeyPrefixes.js";

/**
 * Every Lua script and pipeline of the Redis ledger, with the keys it is given and the keys it names itself
 * (the grant keys the release script builds from its prefix argument): in a Redis Cluster all of one
 * script's keys must hash to one slot, or Redis refuses it (CROSSSLOT) or, worse, half-runs it.
 */
function scriptKeys(
  prefix: string,
  cluster: boolean,
  id: string,
  grantIds: string[],
): Record<string, string[]> {
  const keys = ledgerKeys(prefix, cluster);
  const grants = grantIds.map((grant) => keys.grantPrefix + grant);
  return {
    reserve: [keys.payment(id)],
    // RELEASE_SCRIPT: the reservation, the charge record, and the grants the charge names (built inside).
    release: [keys.payment(id), keys.charge(id), ...grants],
    // The spent mark and the charge record go in one pipeline (one node of the Cluster).
    spend: [keys.payment(id), keys.charge(id)],
    // CHARGE_SCRIPT: the charge record and every grant of the chain.
    charge: [keys.charge(id), ...grants],
    // OPEN_PASS_SCRIPT; END_PASSES_SCRIPT names the payer's passes (built inside from the pass prefix).
    openPass: [keys.passPrefix + id, keys.passOf(id.slice(0, 16), "0xab"), keys.passesOf("0xab")],
    endPasses: [keys.passesOf("0xab"), keys.passPrefix + id, ...grantIds.map((g) => keys.passPrefix + g)],
  };
}

const slotsOf = (keys: string[]) => new Set(keys.map((key) => calculateSlot(key)));

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const anyPrefix = fc.oneof(
  fc.constant("x402:payment:"),
  fc.string({ maxLength: 40 }),
  fc.string({ maxLength: 12 }).map((inside) => `{${inside}}:`),
  fc.string({ maxLength: 12 }).map((inside) => `app:{${inside}`),
);

describe("Redis Cluster hash slots of the ledger's scripts", () => {
  it("every script's keys hash to one slot, for any prefix, payment and grants", () => {
    fc.assert(
      fc.property(anyPrefix, hex, fc.array(hex, { minLength: 1, maxLength: 4 }), (prefix, id, grants) => {
        for (const [script, keys] of Object.entries(scriptKeys(prefix, true, id, grants))) {
          expect(slotsOf(keys).size, `${script} with prefix ${JSON.stringify(prefix)}`).toBe(1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["the default prefix", "x402:payment:"],
    ["a deployment's prefix", "shop-a:payments:"],
    ["a prefix with its own tag", "{shop-b}:payments:"],
    ["a prefix with an empty tag (not a tag to Redis)", "shop{}c:"],
    ["a prefix with an unclosed brace", "shop{d:"],
    ["a closing brace first", "shop}e{:"],
    ["an empty prefix", ""],
  ])("%s: release, charge and spend of two payments under many grants stay in one slot", (_name, prefix) => {
    const grants = ["aa".repeat(32), "bb".repeat(32), "cc".repeat(32)];
    const first = scriptKeys(prefix, true, "11".repeat(32), grants);
    const second = scriptKeys(prefix, true, "22".repeat(32), grants.slice(1));
    expect(slotsOf([...Object.values(first), ...Object.values(second)].flat()).size).toBe(1);
  });

  it("without the tag the same scripts would span slots (what the test guards against)", () => {
    const grants = ["aa".repeat(32), "bb".repeat(32)];
    const keys = scriptKeys("x402:payment:", false, "11".repeat(32), grants);
    expect(slotsOf(keys.release!).size).toBeGreaterThan(1);
  });

  it("on one Redis or Sentinel the keys are what they always were (a rolling upgrade shares payments)", () => {
    const keys = ledgerKeys("x402:payment:", false);
    expect([keys.payment("abc"), keys.charge("abc"), keys.grantPrefix]).toEqual([
      "x402:payment:abc",
      "x402:payment:charge:abc",
      "x402:payment:grant:",
    ]);
    expect(ledgerKeys("x402:payment:", true).payment("abc")).toBe("{x402:payment:}abc");
  });

  it("sign-in nonces and the revocation set are one key per command: any slot will do", () => {
    // RedisNonceStore: SET NX on one key; RedisRevokedPayers' script: KEYS[1] = the set, plus a PUBLISH.
    const prefixes = redisKeyPrefixes({ keyPrefix: "shop:" });
    expect(prefixes).toEqual({ nonces: "shop:siwx:nonce:", revoked: "shop:revoked:" });
  });
});
