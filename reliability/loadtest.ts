import { parseArgs } from "node:util";
import { boundShortRun } from "./support/boundShortRun.js";
import { finishRun } from "./support/finishRun.js";
import { errorCode, machineNote, MiB, quantile, round, startBenchRig } from "./support/startBenchRig.js";

// npm run loadtest -- [--requests N] [--concurrency C] [--short]
// N distinct paid requests through a gateway process at fixed concurrency, against the local stack.
// --short (CI): 100 requests unless --requests says otherwise, bounded.
const { values } = parseArgs({
  options: {
    requests: { type: "string" },
    concurrency: { type: "string", default: "10" },
    short: { type: "boolean", default: false },
  },
});
const short = values.short;
const requests = Number(values.requests ?? (short ? "100" : "200"));
const concurrency = Number(values.concurrency);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error("usage: npm run loadtest -- [--requests N] [--concurrency C] [--short]");
  process.exit(2);
}
/** A short run (start-up, signing, the load) that has not finished within this fails. */
const SHORT_RUN_BUDGET_MS = 180_000;

const starting = startBenchRig({ probeIntervalMs: 250 });
if (short) boundShortRun("loadtest", SHORT_RUN_BUDGET_MS, async () => (await starting).stop());
const rig = await starting;
let passed = false;
try {
  const { url } = rig;
  console.log(`loadtest: signing ${requests} payments…`);
  const headers = await rig.signer.sign(`${url}/paid/warm`, requests);
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  let next = 0;
  let ok = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < headers.length) {
      const i = next++;
      const t0 = performance.now();
      try {
        const response = await fetch(`${url}/paid/r${i}`, {
          headers: { "payment-signature": headers[i]! },
        });
        const body = await response.text();
        if (response.status === 200 && response.headers.has("payment-response")) ok++;
        else {
          const code = `${response.status} ${errorCode(body)}`;
          errors.set(code, (errors.get(code) ?? 0) + 1);
        }
      } catch (error) {
        const code = `connection ${(error as Error).message}`;
        errors.set(code, (errors.get(code) ?? 0) + 1);
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const transfers = await rig.chain.transfersToPayee();
  const sorted = latencies.sort((a, b) => a - b);
  const peakRss = Math.max(...rig.gateway.probes.map((p) => p.rssBytes));
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const figures = {
    requests,
    concurrency,
    seconds: round(seconds),
    throughputPerSecond: round(requests / seconds),
    latencyMs: {
      p50: round(quantile(sorted, 0.5)),
      p90: round(quantile(sorted, 0.9)),
      p99: round(quantile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    paid2xx: ok,
    settlements: transfers.count,
    errors: Object.fromEntries(errors),
    errorCount,
    upstreamHits: rig.upstream.served,
    gatewayPeakRssMiB: round(peakRss / MiB),
    machine: machineNote(),
  };
  console.log(
    `loadtest: ${figures.throughputPerSecond} paid req/s at concurrency ${concurrency}; p50 ${figures.latencyMs.p50} ms, p99 ${figures.latencyMs.p99} ms; gateway peak RSS ${figures.gatewayPeakRssMiB} MiB`,
  );
  passed = finishRun(
    "loadtest",
    figures,
    [
      {
        promise: "one settlement per payment",
        seen: `${transfers.count} settlements, ${requests} payments`,
        held: transfers.count === requests,
      },
      {
        promise: "every payment served (2xx with PAYMENT-RESPONSE)",
        seen: `${ok} of ${requests}`,
        held: ok === requests,
      },
      {
        promise: "one upstream call per payment",
        seen: `${rig.upstream.served} upstream calls, ${requests} payments`,
        held: rig.upstream.served === requests,
      },
      { promise: "no errors", seen: `${errorCount} errors`, held: errorCount === 0 },
    ],
    { short },
  );
} finally {
  await rig.stop();
}
process.exit(passed ? 0 : 1);
