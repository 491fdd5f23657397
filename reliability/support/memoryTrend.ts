import type { ProbeSample } from "./spawnGateway.js";
import { MiB, quantile, round } from "./startBenchRig.js";

/** The gateway's memory and event-loop delay over a run, from its probe samples. */
export interface MemoryTrend {
  samples: number;
  rssMiB: { afterWarmup: number; end: number; peak: number };
  rssGrowthMiB: number;
  heapUsedMiB: { afterWarmup: number; end: number };
  loopDelayP99Ms: { afterWarmup: number; end: number; max: number };
}

/**
 * RSS and event-loop delay right after warm-up (median of the first third of the samples after
 * `warmEnd`, at most a minute's) and at the end (median of as many last samples).
 */
export function memoryTrend(samples: ProbeSample[], warmEnd: number): MemoryTrend {
  const after = samples.filter((s) => s.at >= warmEnd);
  const window = Math.max(1, Math.min(60, Math.floor(after.length / 3)));
  const head = after.slice(0, window);
  const tail = after.slice(-window);
  const median = (values: number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const rssStart = median(head.map((s) => s.rssBytes));
  const rssEnd = median(tail.map((s) => s.rssBytes));
  return {
    samples: samples.length,
    rssMiB: {
      afterWarmup: round(rssStart / MiB),
      end: round(rssEnd / MiB),
      peak: round(Math.max(...samples.map((s) => s.rssBytes)) / MiB),
    },
    rssGrowthMiB: round((rssEnd - rssStart) / MiB),
    heapUsedMiB: {
      afterWarmup: round(median(head.map((s) => s.heapUsedBytes)) / MiB),
      end: round(median(tail.map((s) => s.heapUsedBytes)) / MiB),
    },
    loopDelayP99Ms: {
      afterWarmup: round(median(head.map((s) => s.loopDelayMs.p99))),
      end: round(median(tail.map((s) => s.loopDelayMs.p99))),
      max: round(Math.max(...samples.map((s) => s.loopDelayMs.max))),
    },
  };
}
