import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeApr } from "../../src/staking/computeApr.js";
import { computeApy } from "../../src/staking/computeApy.js";
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

describe("computeApy", () => {
  // Hand-computed with 60-digit decimals: (1 + r/n)^n − 1.
  it.each([
    [855n, 10_000n, 525_600, "8.9261"],
    [855n, 10_000n, 365, "8.9250"],
    [285n, 10_000n, 525_600, "2.8910"],
    [1n, 1n, 1, "100.0000"],
    [1n, 1n, 12, "161.3035"],
    [0n, 1n, 365, "0.0000"],
  ])("%i/%i compounded %i times a year is %s %%", (numerator, denominator, periods, expected) => {
    expect(computeApy({ numerator, denominator }, periods)).toBe(expected);
  });

  it("is null without a rate, and refuses a non-positive number of periods", () => {
    expect(computeApy(null, 365)).toBeNull();
    expect(() => computeApy({ numerator: 1n, denominator: 1n }, 0)).toThrow(RangeError);
  });

  it("is never below the APR and never above e^APR − 1 (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (bps, periods) => {
          const rate = { numerator: BigInt(bps), denominator: 10_000n };
          const apy = Number(computeApy(rate, periods));
          const apr = bps / 100;
          return apy >= apr - 1e-9 && apy <= (Math.exp(bps / 10_000) - 1) * 100 + 1e-3;
        },
      ),
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
    expect(computeApr(input)).toMatchObject({ strkPercent: "8.5500", btcPercent: "2.8500" });
    expect(computeApr({ ...input, commissionBps: 0, strkStake: 3n * rate.networkStake })).toMatchObject({
      strkPercent: "3.0000",
    });
    expect(computeApr({ ...input, btcStake: 0n }).btcPercent).toBeNull();
  });
});
