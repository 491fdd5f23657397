import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { bundlePackage } from "../scripts/bundle.js";
import { median } from "./measure.js";
import type { BenchSettings, Section } from "./Section.js";

const run = promisify(execFile);

/** What one fresh process spent importing its modules. */
interface ImportCost {
  ms: number;
  cpuMs: number;
  rssMiB: number;
}

/** Imports the specifiers in a fresh `node` and reports the time, the CPU and the RSS after it. */
const CHILD = `const specifiers = JSON.parse(process.argv.at(-1));
const started = performance.now();
const cpu = process.cpuUsage();
for (const specifier of specifiers) await import(specifier);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({
  ms: performance.now() - started,
  cpuMs: (used.user + used.system) / 1000,
  rssMiB: process.memoryUsage().rss / 1024 / 1024,
}));`;

async function importCost(specifiers: string[]): Promise<ImportCost> {
  const { stdout } = await run(
    process.execPath,
    ["--input-type=module", "--eval", CHILD, JSON.stringify(specifiers)],
    { cwd: process.cwd() },
  );
  return JSON.parse(stdout) as ImportCost;
}

const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * 10. Cold start: `import("x402-gateway")` of the built package (bundled into .cache/cold-start, as
 * `npm run build` builds dist/) against the official `@x402/express` + `@x402/evm` + `@x402/core`, each in
 * a fresh process, in turn, so a ratio is taken pair by pair.
 */
export async function coldStartScenario(settings: BenchSettings): Promise<Section> {
  const outDir = join(process.cwd(), ".cache", "cold-start");
  await rm(outDir, { recursive: true, force: true });
  await bundlePackage(outDir);
  const OURS = "x402-gateway (package root)";
  const OFFICIAL = "official @x402/express + @x402/evm + @x402/core";
  const contenders: Record<string, string[]> = {
    [OURS]: [pathToFileURL(join(outDir, "index.js")).href],
    [OFFICIAL]: ["@x402/express", "@x402/evm", "@x402/core/server"],
  };
  const names = [OURS, OFFICIAL];
  const rounds = Math.max(10, settings.rounds * 4);
  const costs = new Map<string, ImportCost[]>(names.map((name) => [name, []]));
  for (const name of names) await importCost(contenders[name] ?? []); // warm the file cache
  for (let round = 0; round < rounds; round++) {
    for (const name of names) costs.get(name)?.push(await importCost(contenders[name] ?? []));
  }
  const ours = costs.get(OURS) ?? [];
  const official = costs.get(OFFICIAL) ?? [];
  const ratio = median(ours.map((cost, i) => cost.ms / (official[i]?.ms ?? Number.NaN)));
  const cpuRatio = median(ours.map((cost, i) => cost.cpuMs / (official[i]?.cpuMs ?? Number.NaN)));
  const oursMs = median(ours.map((cost) => cost.ms));
  settings.log(`  [10] ${rounds} rounds: ours ${fixed(oursMs)} ms, × official ${fixed(ratio, 2)}`);
  return {
    id: "10",
    title: "Cold start: importing the package root in a fresh process, beside the official packages",
    lines: [
      "| import | wall ms (median) | CPU ms (median) | RSS after, MiB (median) | wall ms per round |",
      "|---|--:|--:|--:|---|",
      ...names.map((name) => {
        const list = costs.get(name) ?? [];
        return `| ${name} | ${fixed(median(list.map((c) => c.ms)))} | ${fixed(median(list.map((c) => c.cpuMs)))} | ${fixed(median(list.map((c) => c.rssMiB)))} | ${list.map((c) => fixed(c.ms)).join(", ")} |`;
      }),
      "",
      `Paired ratio (ours ÷ official, median of ${rounds} rounds): wall ${fixed(ratio, 2)}×, CPU ${fixed(cpuRatio, 2)}×.`,
      "Which packages the root loads is checked by test/package/coldStart.test.ts (no timing there).",
    ],
    targets: [
      { text: "package root import ≤ 150 ms", measured: `${fixed(oursMs)} ms`, met: oursMs <= 150 },
      {
        text: "package root import ≤ 1× the official packages' (paired)",
        measured: `${fixed(ratio, 2)}×`,
        met: ratio <= 1,
      },
    ],
  };
}
