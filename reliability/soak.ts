import { parseArgs } from "node:util";
import { writeFigures } from "./support/figures.js";
import { errorCode, machineNote, MiB, quantile, round, startBenchRig } from "./support/startBenchRig.js";
import type { ProbeSample } from "./support/spawnGateway.js";

// npm run soak -- --minutes N [--rate R]
// Mixed traffic through a gateway process at a fixed rate (open loop), against the local stack.
const { values } = parseArgs({
  options: { minutes: { type: "string", default: "5" }, rate: { type: "string", default: "10" } },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
if (!(minutes > 0) || !(rate > 0)) {
  console.error("usage: npm run soak -- --minutes N [--rate requests-per-second]");
  process.exit(2);
}

/** RSS after warm-up may grow at most this much by the end (the no-leak bound). */
const RSS_GROWTH_BOUND_MIB = 32;
/** Event-loop delay p99 at the end may be at most this multiple of the post-warm-up one, plus slack. */
const LOOP_DELAY_FACTOR = 2;
const LOOP_DELAY_SLACK_MS = 20;
/** The first fifth of the run (at least 30 s) is warm-up: tsx compiles, V8 optimises, pools fill. */
const warmupMs = Math.max(30_000, (minutes * 60_000) / 5);
/** Requests allowed in flight before the soak counts a tick as dropped (the gateway is not keeping up). */
const MAX_IN_FLIGHT = 200;

type Kind = "free" | "unpaid" | "paid" | "replayed" | "hostile";
/** The mix, in tenths. */
const MIX: Kind[] = [
  "free",
  "free",
  "free",
  "unpaid",
  "unpaid",
  "paid",
  "paid",
  "paid",
  "replayed",
  "hostile",
];
/** What each kind of request must get: status and error code. */
const EXPECTED: Record<Kind, Array<[number, string]>> = {
  free: [[200, ""]],
  unpaid: [[402, "payment_required"]],
  paid: [[200, ""]],
  // Spent, or (sent while its first use is still settling) in progress.
  replayed: [
    [402, "payment_already_used"],
    [409, "payment_in_progress"],
  ],
  hostile: [
    [400, "invalid_payment"],
    [400, "invalid_path"],
    [402, "payment_mismatch"],
    [431, ""],
  ],
};

const rig = await startBenchRig({ probeIntervalMs: 1_000 });
let failed = false;
try {
  const url = rig.gateway.url;
  const nextPayment = await rig.signer.forOffer(`${url}/paid/offer`);
  const spent: string[] = [];
  const answers = new Map<string, number>();
  const unexpected = new Map<string, number>();
  const sent: Record<Kind, number> = { free: 0, unpaid: 0, paid: 0, replayed: 0, hostile: 0 };
  let paid2xx = 0;
  let replay2xx = 0;
  let dropped = 0;
  let inFlight = 0;
  let tick = 0;

  let hostileCount = 0;
  const hostile = async (): Promise<{ path: string; headers: Record<string, string> }> => {
    switch (hostileCount++ % 4) {
      case 0:
        return { path: "/paid/h", headers: { "payment-signature": "not*base64{json" } };
      case 1:
        return { path: "/paid%2Fh", headers: {} };
      case 2: {
        // A real signature, with the amount changed after signing.
        const payment = JSON.parse(Buffer.from(await nextPayment(), "base64").toString()) as {
          accepted: { amount: string };
        };
        payment.accepted.amount = "1";
        return {
          path: "/paid/h",
          headers: { "payment-signature": Buffer.from(JSON.stringify(payment)).toString("base64") },
        };
      }
      default:
        return { path: "/paid/h", headers: { "payment-signature": "A".repeat(70_000) } };
    }
  };

  const one = async (kind: Kind, n: number) => {
    let path = `/free/r${n}`;
    let headers: Record<string, string> = {};
    if (kind === "unpaid") path = `/paid/r${n}`;
    if (kind === "paid") {
      path = `/paid/r${n}`;
      headers = { "payment-signature": await nextPayment() };
    }
    if (kind === "replayed") {
      const header = spent[Math.floor(Math.random() * spent.length)];
      if (header === undefined) return one("unpaid", n);
      path = `/paid/r${n}`;
      headers = { "payment-signature": header };
    }
    if (kind === "hostile") ({ path, headers } = await hostile());
    sent[kind]++;
    let status = 0;
    let code = "connection_error";
    try {
      const response = await fetch(`${url}${path}`, { headers });
      status = response.status;
      const body = await response.text();
      code = status === 200 ? "" : errorCode(body);
    } catch {
      // status 0
    }
    const key = `${status}${code ? ` ${code}` : ""}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
    if (!EXPECTED[kind].some(([s, c]) => s === status && c === code)) {
      const label = `${kind} → ${key}`;
      unexpected.set(label, (unexpected.get(label) ?? 0) + 1);
    }
    if (kind === "paid" && status === 200) {
      paid2xx++;
      spent.push(headers["payment-signature"]!);
    }
    if (kind === "replayed" && status >= 200 && status < 300) replay2xx++;
  };

  const durationMs = minutes * 60_000;
  const started = Date.now();
  console.log(`soak: ${minutes} min at ${rate} req/s through ${url} (warm-up ${warmupMs / 1000} s)`);
  const pending = new Set<Promise<void>>();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (Date.now() - started >= durationMs) {
        clearInterval(timer);
        return resolve();
      }
      if (inFlight >= MAX_IN_FLIGHT) return void dropped++;
      const n = tick++;
      const kind = MIX[n % MIX.length]!;
      inFlight++;
      const request = one(kind, n).finally(() => {
        inFlight--;
        pending.delete(request);
      });
      pending.add(request);
      if (n % (rate * 30) === 0 && n > 0) {
        const last = rig.gateway.probes.at(-1);
        console.log(
          `soak: ${Math.round((Date.now() - started) / 1000)} s, ${n} requests, ${paid2xx} paid, RSS ${last ? Math.round(last.rssBytes / MiB) : "?"} MiB`,
        );
      }
    }, 1000 / rate);
  });
  await Promise.all(pending);

  const transfers = await rig.chain.transfersToPayee();
  const memory = trend(rig.gateway.probes, started + warmupMs);
  const total = [...answers.values()].reduce((a, b) => a + b, 0);
  const figures = {
    minutes,
    ratePerSecond: rate,
    requests: total,
    sent,
    droppedTicks: dropped,
    answers: Object.fromEntries([...answers.entries()].sort()),
    errorRateByCode: Object.fromEntries(
      [...answers.entries()]
        .filter(([key]) => !key.startsWith("2"))
        .map(([key, n]) => [key, round(n / total, 4)]),
    ),
    unexpected: Object.fromEntries(unexpected),
    paid2xx,
    settlements: transfers.count,
    replayed2xx: replay2xx,
    upstreamPaidHits: [...rig.upstream.hits.entries()]
      .filter(([path]) => path.startsWith("/paid/"))
      .reduce((sum, [, n]) => sum + n, 0),
    memory,
    bounds: {
      rssGrowthMiB: RSS_GROWTH_BOUND_MIB,
      loopDelayP99: `end ≤ ${LOOP_DELAY_FACTOR} × after warm-up + ${LOOP_DELAY_SLACK_MS} ms`,
      warmupSeconds: warmupMs / 1000,
    },
    machine: machineNote(),
  };
  const checks = [
    [`settlements = paid 2xx (${transfers.count} = ${paid2xx})`, transfers.count === paid2xx],
    [`no double spend: replayed payments never 2xx (${replay2xx})`, replay2xx === 0],
    [
      `every answer as promised (${[...unexpected.values()].reduce((a, b) => a + b, 0)} unexpected)`,
      unexpected.size === 0,
    ],
    [
      `RSS flat: +${memory.rssGrowthMiB} MiB after warm-up (bound ${RSS_GROWTH_BOUND_MIB} MiB)`,
      memory.rssGrowthMiB <= RSS_GROWTH_BOUND_MIB,
    ],
    [
      `event-loop delay flat: p99 ${memory.loopDelayP99Ms.afterWarmup} → ${memory.loopDelayP99Ms.end} ms`,
      memory.loopDelayP99Ms.end <=
        LOOP_DELAY_FACTOR * memory.loopDelayP99Ms.afterWarmup + LOOP_DELAY_SLACK_MS,
    ],
    [`the rate was held (${dropped} ticks dropped)`, dropped === 0],
  ] as const;
  const passed = Object.fromEntries(checks.map(([label, pass]) => [label, pass]));
  console.log(JSON.stringify(figures, null, 2));
  for (const [label, pass] of checks) console.log(`${pass ? "ok  " : "FAIL"} ${label}`);
  failed = checks.some(([, pass]) => !pass);
  console.log(
    `soak: ${failed ? "FAILED" : "passed"} → ${writeFigures("soak", { ...figures, checks: passed, passed: !failed })}`,
  );
} finally {
  await rig.stop();
}
process.exit(failed ? 1 : 0);

/** RSS and event-loop delay right after warm-up (first minute's median) and at the end (last minute's median). */
function trend(samples: ProbeSample[], warmEnd: number) {
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
