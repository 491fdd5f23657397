import { beforeAll, describe, expect, it } from "vitest";
import { brokenPromises, runShortRun, type ShortRun } from "./support/runShortRun.js";

/**
 * `npm run scaleout -- --short` (what CI runs: a killed Cluster master, a killed Sentinel master, as a
 * ledger client sees them) exits 0 when every promise held, and 1 with its JSON result printed when one
 * broke: here the probe drops one acknowledged reservation during the Sentinel failover (test-only, see
 * reliability/support/injectedFaults.ts), as a lost write would. Both runs at once.
 */
let clean: ShortRun;
let faulty: ShortRun;

beforeAll(async () => {
  [clean, faulty] = await Promise.all([
    runShortRun("scaleout", []),
    runShortRun("scaleout", [], ["lose-write"]),
  ]);
}, 240_000);

describe("the scale-out's short run", () => {
  it("exits 0 when every promise held, its JSON result printed", () => {
    expect(clean.code, `${clean.stdout}\n${clean.stderr}`).toBe(0);
    expect(clean.result).toMatchObject({ name: "scaleout", short: true, passed: true });
    expect(Object.keys(clean.result!.failoverWindows as object)).toEqual([
      "Cluster master killed (wait off)",
      "Sentinel master killed (wait on)",
    ]);
    expect(brokenPromises(clean.result)).toEqual([]);
    expect(Object.keys(clean.result!.checks)).toHaveLength(5);
  });

  it("exits 1 when a failover loses an acknowledged reservation, its JSON result printed", () => {
    expect(faulty.code, `${faulty.stdout}\n${faulty.stderr}`).toBe(1);
    expect(faulty.result).toMatchObject({ name: "scaleout", short: true, passed: false });
    expect(brokenPromises(faulty.result)).toEqual([
      "Sentinel master killed (wait on): no acknowledged reservation lost",
    ]);
  });
});
