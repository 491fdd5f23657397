import { parseArgs } from "node:util";
import { writeFigures } from "./support/figures.js";
import { errorCode, machineNote, MiB, quantile, round, startBenchRig } from "./support/startBenchRig.js";

// npm run loadtest -- [--requests N] [--concurrency C]
// N distinct paid requests through a gateway process at fixed concurrency, against the local stack.
const { values } = parseArgs({
  options: { requests: { type: "string", default: "200" }, concurrency: { type: "string", default: "10" } },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error("usage: npm run loadtest -- [--requests N] [--concurrency C]");
  process.exit(2);
}

const rig = await startBenchRig({ probeIntervalMs: 250 });
let failed = false;
try {
  console.log(`loadtest: signing ${requests} payments…`);
  const headers = await rig.signer.sign(`${rig.gateway.url}/paid/warm`, requests);
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
        const response = await fetch(`${rig.gateway.url}/paid/r${i}`, {
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
    errorCount: [...errors.values()].reduce((a, b) => a + b, 0),
    upstreamHits: rig.upstream.served,
    gatewayPeakRssMiB: round(peakRss / MiB),
    machine: machineNote(),
  };
  console.log(JSON.stringify(figures, null, 2));
  const file = writeFigures("loadtest", figures);
  const checks = [
    [`settlements = N (${transfers.count} = ${requests})`, transfers.count === requests],
    [`paid 2xx = N (${ok} = ${requests})`, ok === requests],
    [`errors = 0 (${figures.errorCount})`, figures.errorCount === 0],
  ] as const;
  for (const [label, pass] of checks) console.log(`${pass ? "ok  " : "FAIL"} ${label}`);
  failed = checks.some(([, pass]) => !pass);
  console.log(
    `loadtest: ${figures.throughputPerSecond} paid req/s at concurrency ${concurrency}; p50 ${figures.latencyMs.p50} ms, p99 ${figures.latencyMs.p99} ms; gateway peak RSS ${figures.gatewayPeakRssMiB} MiB → ${file}`,
  );
} finally {
  await rig.stop();
}
process.exit(failed ? 1 : 0);
