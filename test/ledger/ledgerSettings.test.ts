import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ledgerSettingsSchema, ledgerWaitOf } from "../../src/ledger/ledgerSettings.js";

describe("ledger settings: one Redis, a Redis Cluster or Sentinel", () => {
  it.each([
    ["one Redis", { type: "redis", url: "redis://127.0.0.1:6379" }],
    [
      "a cluster",
      { type: "redis", cluster: { nodes: ["redis://10.0.0.1:7000", "rediss://u:p@10.0.0.2:7001"] } },
    ],
    ["sentinel", { type: "redis", sentinel: { sentinels: ["redis://10.0.0.1:26379"], name: "ledger" } }],
    ["WAIT off", { type: "redis", cluster: { nodes: ["redis://a:1"] }, wait: false }],
    ["WAIT 2 of 250 ms", { type: "redis", url: "redis://a:1", wait: { replicas: 2, timeoutMs: 250 } }],
  ])("accepts %s", (_name, input) => {
    expect(ledgerSettingsSchema.safeParse(input).success).toBe(true);
  });

  it.each([
    ["no Redis at all", { type: "redis" }],
    ["url and cluster", { type: "redis", url: "redis://a:1", cluster: { nodes: ["redis://b:2"] } }],
    [
      "cluster and sentinel",
      {
        type: "redis",
        cluster: { nodes: ["redis://b:2"] },
        sentinel: { sentinels: ["redis://c:3"], name: "m" },
      },
    ],
    ["an empty node list", { type: "redis", cluster: { nodes: [] } }],
    ["a node that is not a redis URL", { type: "redis", cluster: { nodes: ["http://b:2"] } }],
    ["a node given as host:port", { type: "redis", cluster: { nodes: ["b:2"] } }],
    ["an unknown cluster key", { type: "redis", cluster: { nodes: ["redis://b:2"], scaleReads: "slave" } }],
    ["sentinel without a name", { type: "redis", sentinel: { sentinels: ["redis://c:3"] } }],
    ["sentinel with an empty name", { type: "redis", sentinel: { sentinels: ["redis://c:3"], name: "" } }],
    ["no sentinels", { type: "redis", sentinel: { sentinels: [], name: "m" } }],
    ["WAIT true", { type: "redis", url: "redis://a:1", wait: true }],
    ["WAIT 0 replicas", { type: "redis", url: "redis://a:1", wait: { replicas: 0 } }],
    ["WAIT forever (0 ms)", { type: "redis", url: "redis://a:1", wait: { timeoutMs: 0 } }],
    ["WAIT a fraction", { type: "redis", url: "redis://a:1", wait: { replicas: 1.5 } }],
    ["WAIT as a string", { type: "redis", url: "redis://a:1", wait: "1 500" }],
    ["cluster on a memory ledger", { type: "memory", cluster: { nodes: ["redis://b:2"] } }],
  ])("refuses %s", (_name, input) => {
    expect(ledgerSettingsSchema.safeParse(input).success).toBe(false);
  });

  it("refuses any node that is not a redis:// or rediss:// URL", () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^rediss?:\/\//.test(text)),
        (node) => !ledgerSettingsSchema.safeParse({ type: "redis", cluster: { nodes: [node] } }).success,
      ),
    );
  });

  it("WAIT defaults: on (1 replica, 500 ms) with cluster or sentinel, off with one Redis, as set otherwise", () => {
    const parse = (input: unknown) => {
      const settings = ledgerSettingsSchema.parse(input);
      if (settings.type !== "redis") throw new Error("expected a redis ledger");
      return ledgerWaitOf(settings);
    };
    expect(parse({ type: "redis", url: "redis://a:1" })).toBe(false);
    expect(parse({ type: "redis", cluster: { nodes: ["redis://a:1"] } })).toEqual({
      replicas: 1,
      timeoutMs: 500,
    });
    expect(parse({ type: "redis", sentinel: { sentinels: ["redis://a:1"], name: "m" } })).toEqual({
      replicas: 1,
      timeoutMs: 500,
    });
    expect(parse({ type: "redis", cluster: { nodes: ["redis://a:1"] }, wait: false })).toBe(false);
    expect(parse({ type: "redis", url: "redis://a:1", wait: {} })).toEqual({ replicas: 1, timeoutMs: 500 });
  });
});
