import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { PassRecord } from "../../src/ledger/PaymentLedger.js";
import { ledgerPairs } from "../support/ledgerPairs.js";

const pairs = ledgerPairs("x402-test-passes:");
afterAll(() => pairs.close());

function pass(overrides: Partial<PassRecord> = {}): PassRecord {
  return {
    id: randomBytes(16).toString("hex"),
    scope: "0011223344556677",
    payer: `0x${randomBytes(20).toString("hex")}`,
    credits: 9,
    expiresAtMs: Date.now() + 60_000,
    ...overrides,
  };
}

// Two handles on one ledger stand for two gateways: a credit is spent once, whichever spends it.
describe.each(pairs.kinds)("pass credits in the %s ledger", (_kind, open) => {
  it("50 concurrent uses through two instances spend 9 credits exactly 9 times", async () => {
    const [a, b] = open();
    const opened = pass();
    await a.openPass(opened);
    const uses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).usePass(opened.id)),
    );
    const used = uses.filter((use) => use.status === "used");
    expect(used).toHaveLength(9);
    expect(uses.filter((use) => use.status === "used_up")).toHaveLength(41);
    expect(used.map((use) => (use as { remaining: number }).remaining).sort((x, y) => x - y)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });

  it("a pass counted by time is used without counting, until it is ended", async () => {
    const [a, b] = open();
    const opened = pass({ credits: undefined });
    await a.openPass(opened);
    for (let i = 0; i < 5; i++)
      expect(await b.usePass(opened.id)).toEqual({ status: "used", remaining: undefined });
    expect(await b.endPasses(opened.payer)).toBe(1);
    expect(await a.usePass(opened.id)).toEqual({ status: "unknown" });
  });

  it("finds a payer's pass on a scope, and ending the payer's passes ends every one of them", async () => {
    const [a, b] = open();
    const first = pass();
    const second = pass({ payer: first.payer, scope: "8899aabbccddeeff" });
    const stranger = pass();
    for (const opened of [first, second, stranger]) await a.openPass(opened);
    expect(await b.passOf(first.scope, first.payer)).toBe(first.id);
    expect(await b.passOf(second.scope, first.payer)).toBe(second.id);
    expect(await b.passOf("ffffffffffffffff", first.payer)).toBeUndefined();
    expect(await b.endPasses(first.payer)).toBe(2);
    expect(await a.usePass(first.id)).toEqual({ status: "unknown" });
    expect(await a.usePass(second.id)).toEqual({ status: "unknown" });
    expect((await a.usePass(stranger.id)).status).toBe("used");
  });

  it("an unknown or expired pass is unknown", async () => {
    const [a] = open();
    expect(await a.usePass(randomBytes(16).toString("hex"))).toEqual({ status: "unknown" });
    const short = pass({ expiresAtMs: Date.now() + 50 });
    await a.openPass(short);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await a.usePass(short.id)).toEqual({ status: "unknown" });
  });
});
