import { beforeAll, describe, expect, it } from "vitest";
import { brokenPromises, runShortRun, type ShortRun } from "./support/runShortRun.js";

/**
 * `npm run loadtest -- --short` (what CI runs) exits 0 when every promise held, and 1 with its JSON
 * result printed when one broke: here a faulty front (test-only, see
 * reliability/support/injectedFaults.ts) calls the upstream twice per payment. Ten payments each, both
 * runs at once.
 */
let clean: ShortRun;
let faulty: ShortRun;

beforeAll(async () => {
  [clean, faulty] = await Promise.all([
    runShortRun("loadtest", ["--requests", "10"]),
    runShortRun("loadtest", ["--requests", "10"], ["double-serve"]),
  ]);
}, 180_000);

describe("the load test's short run", () => {
  it("exits 0 when every promise held, its JSON result printed", () => {
    expect(clean.code, `${clean.stdout}\n${clean.stderr}`).toBe(0);
    expect(clean.result).toMatchObject({
      name: "loadtest",
      short: true,
      passed: true,
      requests: 10,
      paid2xx: 10,
      settlements: 10,
    });
    expect(brokenPromises(clean.result)).toEqual([]);
    expect(Object.keys(clean.result!.checks)).toHaveLength(4);
  });

  it("exits 1 when the upstream is called twice for one payment, its JSON result printed", () => {
    expect(faulty.code, `${faulty.stdout}\n${faulty.stderr}`).toBe(1);
    expect(faulty.result).toMatchObject({ name: "loadtest", short: true, passed: false, upstreamHits: 20 });
    expect(brokenPromises(faulty.result)).toEqual(["one upstream call per payment"]);
  });
});
