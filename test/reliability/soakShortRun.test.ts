import { beforeAll, describe, expect, it } from "vitest";
import { brokenPromises, runShortRun, type ShortRun } from "./support/runShortRun.js";

/**
 * `npm run soak -- --short` (what CI runs) exits 0 when every promise held, and 1 with its JSON result
 * printed when one broke: here a faulty front (test-only, see reliability/support/injectedFaults.ts)
 * serves payments twice and answers refusals with the wrong code. Nine seconds of traffic each, both
 * runs at once.
 */
let clean: ShortRun;
let faulty: ShortRun;

beforeAll(async () => {
  [clean, faulty] = await Promise.all([
    runShortRun("soak", ["--minutes", "0.15"]),
    runShortRun("soak", ["--minutes", "0.15"], ["double-serve", "wrong-code"]),
  ]);
}, 180_000);

describe("the soak's short run", () => {
  it("exits 0 when every promise held, its JSON result printed", () => {
    expect(clean.code, `${clean.stdout}\n${clean.stderr}`).toBe(0);
    expect(clean.result).toMatchObject({ name: "soak", short: true, passed: true });
    expect(brokenPromises(clean.result)).toEqual([]);
    expect(Object.keys(clean.result!.checks)).toHaveLength(5);
    // Every kind of request was sent, and the hostile ones got the catalogue's answers.
    expect(Object.values(clean.result!.sent as Record<string, number>).every((n) => n > 0)).toBe(true);
    expect(clean.result!.answers).toHaveProperty(["431 header_too_large"]);
  });

  it("exits 1 when a payment is served twice or a refusal carries the wrong code, its JSON result printed", () => {
    expect(faulty.code, `${faulty.stdout}\n${faulty.stderr}`).toBe(1);
    expect(faulty.result).toMatchObject({ name: "soak", short: true, passed: false });
    expect(brokenPromises(faulty.result).sort()).toEqual([
      "every answer as the catalogue says",
      "no double spend: a replayed payment is never served",
      "one upstream call per paid 2xx",
    ]);
  });
});
