import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeApr } from "../../src/staking/computeApr.js";
import { accrueRewards, SECONDS_PER_YEAR } from "../../src/staking/local/accrueRewards.js";

const rate = {
  yearlyMint: 120_000_000n * 10n ** 18n,
  shareBps: 7_500n,
  networkStake: 1_000_000_000n * 10n ** 18n,
  epochLengthSeconds: 60n,
  commissionBps: 500n,
  decimals: 18,
};

describe("accrueRewards", () => {
  it("pays nothing before the first checkpoint and per segment after it", () => {
    const amount = 1_000n * 10n ** 18n;
    expect(accrueRewards([{ epoch: 2, amount }], 0, 2, rate)).toBe(0n);
    const one = accrueRewards([{ epoch: 2, amount }], 0, 3, rate);
    expect(one).toBe(
      (amount * rate.yearlyMint * 7_500n * 60n * 9_500n) / (SECONDS_PER_YEAR * rate.networkStake * 10n ** 8n),
    );
    const two = accrueRewards(
      [
        { epoch: 2, amount },
        { epoch: 5, amount: amount * 2n },
      ],
      0,
      6,
      rate,
    );
    expect(two).toBe(
      accrueRewards([{ epoch: 0, amount }], 0, 3, rate) +
        accrueRewards([{ epoch: 0, amount: amount * 2n }], 0, 1, rate),
    );
  });

  it("is additive over adjacent epoch ranges (up to one unit of rounding per segment)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 100n }), fc.nat(1000), fc.nat(1000), (amount, a, b) => {
        const cps = [{ epoch: 0, amount }];
        const whole = accrueRewards(cps, 0, a + b, rate);
        const parts = accrueRewards(cps, 0, a, rate) + accrueRewards(cps, a, a + b, rate);
        expect(whole - parts).toBeGreaterThanOrEqual(0n);
        expect(whole - parts).toBeLessThanOrEqual(1n);
      }),
    );
  });
});

describe("computeApr", () => {
  it("computes STRK and BTC APR from bigints, null when a stake is zero", () => {
    const input = {
      yearlyMint: rate.yearlyMint,
      strkStake: rate.networkStake,
      btcStake: 1_500n * 10n ** 18n,
      btcShareBps: 2_500,
      commissionBps: 500,
      strkUsd: "0.15",
      btcUsd: "100000",
    };
    expect(computeApr(input)).toEqual({ strkPercent: "8.5500", btcPercent: "2.8500" });
    expect(computeApr({ ...input, commissionBps: 0, strkStake: 3n * rate.networkStake })).toMatchObject({
      strkPercent: "3.0000",
    });
    expect(computeApr({ ...input, btcStake: 0n }).btcPercent).toBeNull();
  });
});
