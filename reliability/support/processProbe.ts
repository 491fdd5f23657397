import { monitorEventLoopDelay } from "node:perf_hooks";

// Preloaded into a gateway process by spawnGateway: prints its RSS and event-loop delay to stderr,
// one `PROBE {json}` line per interval, so soak and load runs measure the gateway and nothing else.
const intervalMs = Number(process.env.X402_PROBE_INTERVAL_MS);
if (Number.isFinite(intervalMs) && intervalMs > 0) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    const sample = {
      at: Date.now(),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      loopDelayMs: {
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      },
    };
    delay.reset();
    process.stderr.write(`PROBE ${JSON.stringify(sample)}\n`);
  }, intervalMs);
  timer.unref();
}
