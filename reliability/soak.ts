import { parseArgs } from "node:util";
import { ERROR_STATUS, type ErrorCode } from "../src/protocol/errors.js";
import { boundShortRun } from "./support/boundShortRun.js";
import { finishRun, type RunCheck } from "./support/finishRun.js";
import { hostileRequests } from "./support/hostileRequests.js";
import { memoryTrend } from "./support/memoryTrend.js";
import { errorCode, machineNote, MiB, round, startBenchRig } from "./support/startBenchRig.js";

// npm run soak -- [--minutes N] [--rate R] [--short]
// Mixed traffic through a gateway process at a fixed rate (open loop), against the local stack.
// --short (CI): half a minute unless --minutes says otherwise, bounded, memory trends reported, not checked.
const { values } = parseArgs({
  options: {
    minutes: { type: "string" },
    rate: { type: "string", default: "10" },
    short: { type: "boolean", default: false },
  },
});
const short = values.short;
const minutes = Number(values.minutes ?? (short ? "0.5" : "5"));
const rate = Number(values.rate);
if (!(minutes > 0) || !(rate > 0)) {
  console.error("usage: npm run soak -- [--minutes N] [--rate requests-per-second] [--short]");
  process.exit(2);
}

/** RSS after warm-up may grow at most this much by the end (the no-leak bound). */
const RSS_GROWTH_BOUND_MIB = 32;
/** Event-loop delay p99 at the end may be at most this multiple of the post-warm-up one, plus slack. */
const LOOP_DELAY_FACTOR = 2;
const LOOP_DELAY_SLACK_MS = 20;
/**
 * Warm-up (tsx compiles, V8 optimises, pools fill): the first fifth of the run, at least 30 s; in a
 * short run its first third (its trends are reported, not checked).
 */
const warmupMs = short ? (minutes * 60_000) / 3 : Math.max(30_000, (minutes * 60_000) / 5);
/** Requests allowed in flight before the soak counts a tick as dropped (the gateway is not keeping up). */
const MAX_IN_FLIGHT = 200;
/** A short run that has not finished this long after its traffic should have ended fails. */
const SHORT_RUN_SLACK_MS = 120_000;

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
/** What a request may get: `served` (200), or refused with a catalogue code at the catalogue's status. */
type Promised = "served" | ErrorCode;
const PROMISED: Record<Exclude<Kind, "hostile">, Promised[]> = {
  free: ["served"],
  unpaid: ["payment_required"],
  paid: ["served"],
  // Spent, or (sent while its first use is still settling) in progress.
  replayed: ["payment_already_used", "payment_in_progress"],
};
const asPromised = (status: number, code: string, promised: Promised[]) =>
  promised.some((answer) =>
    answer === "served" ? status === 200 && code === "" : status === ERROR_STATUS[answer] && code === answer,
  );

const starting = startBenchRig({ probeIntervalMs: 1_000 });
if (short) boundShortRun("soak", minutes * 60_000 + SHORT_RUN_SLACK_MS, async () => (await starting).stop());
const rig = await starting;
let passed = false;
try {
  const { url } = rig;
  const nextPayment = await rig.signer.forOffer(`${url}/paid/offer`);
  const hostile = hostileRequests(nextPayment);
  const spent: string[] = [];
  const answers = new Map<string, number>();
  const unexpected = new Map<string, number>();
  const sent: Record<Kind, number> = { free: 0, unpaid: 0, paid: 0, replayed: 0, hostile: 0 };
  let paid2xx = 0;
  let replay2xx = 0;
  let dropped = 0;
  let inFlight = 0;
  let tick = 0;

  const one = async (kind: Kind, n: number) => {
    let path = `/free/r${n}`;
    let headers: Record<string, string> = {};
    let promised: Promised[] = [];
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
    if (kind === "hostile") {
      const request = await hostile();
      ({ path, headers } = request);
      promised = [request.refusedWith];
    } else promised = PROMISED[kind];
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
    if (!asPromised(status, code, promised)) {
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
  const memory = memoryTrend(rig.gateway.probes, started + warmupMs);
  const total = [...answers.values()].reduce((a, b) => a + b, 0);
  const upstreamPaidHits = [...rig.upstream.hits.entries()]
    .filter(([path]) => path.startsWith("/paid/"))
    .reduce((sum, [, n]) => sum + n, 0);
  const unexpectedCount = [...unexpected.values()].reduce((a, b) => a + b, 0);
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
    upstreamPaidHits,
    memory,
    bounds: {
      rssGrowthMiB: RSS_GROWTH_BOUND_MIB,
      loopDelayP99: `end ≤ ${LOOP_DELAY_FACTOR} × after warm-up + ${LOOP_DELAY_SLACK_MS} ms`,
      warmupSeconds: warmupMs / 1000,
    },
    ...(short ? { notChecked: "RSS and event-loop delay trends: a short run is too short for them" } : {}),
    machine: machineNote(),
  };
  const checks: RunCheck[] = [
    {
      promise: "one settlement per paid 2xx",
      seen: `${transfers.count} settlements, ${paid2xx} paid 2xx`,
      held: transfers.count === paid2xx,
    },
    {
      promise: "no double spend: a replayed payment is never served",
      seen: `${replay2xx} replays served`,
      held: replay2xx === 0,
    },
    {
      promise: "one upstream call per paid 2xx",
      seen: `${upstreamPaidHits} upstream calls, ${paid2xx} paid 2xx`,
      held: upstreamPaidHits === paid2xx,
    },
    {
      promise: "every answer as the catalogue says",
      seen: `${unexpectedCount} unexpected`,
      held: unexpected.size === 0,
    },
    { promise: "the rate was held", seen: `${dropped} ticks dropped`, held: dropped === 0 },
  ];
  if (!short) {
    checks.push(
      {
        promise: `RSS flat after warm-up (at most +${RSS_GROWTH_BOUND_MIB} MiB)`,
        seen: `${memory.rssGrowthMiB > 0 ? "+" : ""}${memory.rssGrowthMiB} MiB`,
        held: memory.rssGrowthMiB <= RSS_GROWTH_BOUND_MIB,
      },
      {
        promise: "event-loop delay flat (p99 at the end within the bound)",
        seen: `p99 ${memory.loopDelayP99Ms.afterWarmup} → ${memory.loopDelayP99Ms.end} ms`,
        held:
          memory.loopDelayP99Ms.end <=
          LOOP_DELAY_FACTOR * memory.loopDelayP99Ms.afterWarmup + LOOP_DELAY_SLACK_MS,
      },
    );
  }
  passed = finishRun("soak", figures, checks, { short });
} finally {
  await rig.stop();
}
process.exit(passed ? 0 : 1);
