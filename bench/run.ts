import { cpus } from "node:os";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { coldStartScenario } from "./coldStartScenario.js";
import { ROUTE, type SignedPayload } from "./contenders.js";
import { runHttpScenario, type HttpScenario } from "./httpScenario.js";
import {
  cborDecodeScenario,
  codecScenario,
  recognitionScenario,
  routeTableScenario,
} from "./microScenarios.js";
import { loadPaymentPool } from "./paymentPool.js";
import { passScenario } from "./passScenario.js";
import { coresScenario, memoryScenario, redisReachable } from "./systemScenarios.js";
import type { BenchSettings, Section } from "./Section.js";

const HERE = dirname(fileURLToPath(import.meta.url));

const USAGE = `Usage: npm run bench -- [--quick] [--profile <contender>] [scenario …]

Runs the benchmark scenarios (all by default; or by number: 1 3) and writes bench/RESULTS.md
(a --quick or partial run writes .cache/RESULTS-partial.md instead).

  --quick      shorter rounds (2 s), for a check rather than a measurement
  --profile    run that contender under node --cpu-prof (profiles in .cache/profiles)`;

const labels = {
  "bare-http-402": "bare node:http (constant 402)",
  "bare-express-402": "bare Express (constant 402)",
  "express-middleware-402": "Express middleware, same 402, no paywall work",
  official: "official @x402/express 2.27",
  "official-svm": "official @x402/express 2.27 + @x402/svm",
  x402: "x402()",
  gateway: "x402-gateway serve",
  "express-hpm": "Express + hpm, keep-alive agent",
  "bare-http-paid": "bare node:http, verify + settle (floor)",
  "x402-redis": "x402(), Redis ledger",
  "gateway-redis": "x402-gateway serve, Redis ledger",
  "bare-hono-402": "bare Hono (constant 402)",
  "official-hono": "official @x402/hono 2.27",
  "x402-hono": "x402Hono()",
} as const;

const HTTP_SCENARIOS: HttpScenario[] = [
  {
    id: "1",
    title: "402 path: unpaid GET of a priced route",
    contenders: [
      "bare-http-402",
      "bare-express-402",
      "express-middleware-402",
      "official",
      "x402",
      "gateway",
    ],
    floor: "bare-express-402",
    path: ROUTE,
    expectStatus: 402,
    upstream: false,
    paid: false,
    labels,
    targets: [
      { contender: "x402", versus: "bare-express-402", min: 1.1 },
      { contender: "x402", versus: "official", min: 1.5 },
      { contender: "gateway", versus: "bare-express-402", min: 2 },
    ],
  },
  {
    id: "2",
    title: "Paid path: a distinct pre-signed payment per request, instant in-process facilitator",
    contenders: ["official", "x402", "gateway"],
    floor: "official",
    path: ROUTE,
    expectStatus: 200,
    upstream: true,
    paid: true,
    labels,
    targets: [
      { contender: "x402", versus: "official", min: 1.5 },
      { contender: "gateway", versus: "x402", min: 0.8 },
    ],
  },
  {
    id: "12",
    title:
      "CBOR paid path over HTTP: a distinct CBOR intent per request (POST retry), the local CBOR facilitator in its own process",
    contenders: ["x402", "gateway"],
    floor: "x402",
    path: ROUTE,
    expectStatus: 200,
    upstream: true,
    paid: true,
    facilitator: true,
    format: "cbor",
    labels,
    targets: [],
  },
  {
    id: "3",
    title: "Free proxied path: GET of an unpriced path, forwarded to a local upstream",
    contenders: ["express-hpm", "gateway"],
    floor: "express-hpm",
    path: "/free/hello",
    expectStatus: 200,
    upstream: true,
    paid: false,
    labels,
    targets: [{ contender: "gateway", versus: "express-hpm", min: 0.9 }],
  },
];

/** A paid GET of the priced route, the instant facilitator in its own process reached over HTTP (11, 14). */
const PAID_OVER_HTTP = {
  floor: "official",
  warmupSeconds: 3,
  path: ROUTE,
  expectStatus: 200,
  upstream: true,
  paid: true,
  facilitator: true,
} as const;

/** Scenario 11's targets, which the Solana scenario 15 is held to as well. */
const OVER_HTTP_TARGETS: HttpScenario["targets"] = [
  { contender: "x402", maxCpuMicros: 600 },
  { contender: "gateway", maxCpuMicros: 600 },
  { contender: "x402", versus: "official", min: 1.8 },
  { contender: "gateway", versus: "official", min: 1.8 },
];

/**
 * Scenario 11 (issue #32): paid requests with the facilitator in its own process, reached over HTTP by
 * every contender (the official through its own HTTPFacilitatorClient); with Redis reachable, `x402()`
 * and the gateway again on a Redis ledger.
 */
async function paidOverHttpScenario(
  settings: BenchSettings,
  pool: () => Promise<SignedPayload[]>,
): Promise<Section> {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = await redisReachable(redisUrl);
  const scenario: HttpScenario = {
    id: "11",
    title: "Paid path over HTTP: a distinct payment per request, instant facilitator in its own process",
    contenders: [
      "official",
      "bare-http-paid",
      "x402",
      "gateway",
      ...(redis
        ? [
            { id: "x402-redis", contender: "x402" as const, options: { redisUrl } },
            { id: "gateway-redis", contender: "gateway" as const, options: { redisUrl } },
          ]
        : []),
    ],
    ...PAID_OVER_HTTP,
    labels,
    targets: [
      ...OVER_HTTP_TARGETS,
      ...(redis
        ? [
            { contender: "x402-redis", versus: "x402", min: 0.85 },
            { contender: "gateway-redis", versus: "gateway", min: 0.85 },
          ]
        : []),
    ],
  };
  const section = await runHttpScenario(scenario, settings, pool);
  return redis
    ? section
    : {
        ...section,
        lines: [...section.lines, "", `Redis ledger variants not run: no Redis at ${redisUrl}.`],
      };
}

/**
 * Scenario 14 (issue #33, item 7): `x402Hono()` and the official `@x402/hono` on the same Hono app served by
 * `@hono/node-server`, the instant facilitator in its own process over HTTP: the 402 path, then the paid path.
 */
async function honoScenario(settings: BenchSettings, pool: () => Promise<SignedPayload[]>): Promise<Section> {
  const common = {
    floor: "official-hono",
    path: ROUTE,
    upstream: false,
    facilitator: true,
    labels,
  };
  const offer = await runHttpScenario(
    {
      ...common,
      contenders: ["bare-hono-402", "official-hono", "x402-hono"],
      id: "14",
      title: "402 path",
      expectStatus: 402,
      paid: false,
      targets: [{ contender: "x402-hono", versus: "official-hono", min: 1.5 }],
    },
    settings,
    pool,
  );
  const paid = await runHttpScenario(
    {
      ...common,
      contenders: ["official-hono", "x402-hono"],
      id: "14",
      title: "paid path",
      expectStatus: 200,
      paid: true,
      targets: [{ contender: "x402-hono", versus: "official-hono", min: 1.3 }],
    },
    settings,
    pool,
  );
  return {
    id: "14",
    title:
      "Hono: x402Hono() vs the official @x402/hono on one Hono app (@hono/node-server), facilitator over HTTP",
    lines: [
      "402 path (unpaid GET):",
      "",
      ...offer.lines,
      "",
      "Paid path (a distinct payment per request):",
      "",
      ...paid.lines,
    ],
    targets: [
      ...offer.targets.map((target) => ({ ...target, text: `402 path: ${target.text}` })),
      ...paid.targets.map((target) => ({ ...target, text: `paid path: ${target.text}` })),
    ],
  };
}

/**
 * Scenario 15 (issue #36): scenario 11 on Solana. Each request carries a distinct transaction signed by the
 * official `@x402/svm` client (pre-signed against the LOCAL Solana engine), to a route priced on the engine's
 * network; the instant facilitator, in its own process over HTTP, names the fee payer in `/supported`.
 */
async function solanaPaidScenario(settings: BenchSettings): Promise<Section> {
  // Loaded here: LiteSVM (native) and @solana/kit stay out of runs without this scenario.
  const { benchSolanaChain, loadSvmPaymentPool } = await import("./svmPaymentPool.js");
  const solana = await benchSolanaChain();
  // Enough for 3,000 paid requests a second per contender (each contender's ledger starts empty).
  const size = (PAID_OVER_HTTP.warmupSeconds + settings.rounds * settings.seconds) * 3_000;
  return runHttpScenario(
    {
      id: "15",
      title:
        "Solana paid path over HTTP: a distinct official @x402/svm transaction per request, instant facilitator in its own process",
      contenders: ["official", "x402", "gateway"],
      ...PAID_OVER_HTTP,
      options: { solana },
      payments: () => loadSvmPaymentPool(size, settings.log),
      labels: { ...labels, official: labels["official-svm"] },
      targets: OVER_HTTP_TARGETS,
    },
    settings,
    async () => [],
  );
}

interface Scenario {
  id: string;
  run(settings: BenchSettings, pool: () => Promise<SignedPayload[]>): Promise<Section>;
}

const SCENARIOS: Scenario[] = [
  ...HTTP_SCENARIOS.map((scenario) => ({
    id: scenario.id,
    run: (settings: BenchSettings, pool: () => Promise<SignedPayload[]>) =>
      runHttpScenario(scenario, settings, pool),
  })),
  { id: "4", run: routeTableScenario },
  { id: "5", run: recognitionScenario },
  { id: "6", run: codecScenario },
  { id: "7", run: memoryScenario },
  { id: "8", run: coresScenario },
  { id: "9", run: cborDecodeScenario },
  { id: "10", run: coldStartScenario },
  { id: "11", run: paidOverHttpScenario },
  { id: "13", run: passScenario },
  { id: "14", run: honoScenario },
  { id: "15", run: solanaPaidScenario },
];

/** What `node --cpu-prof` showed while the gateway was made faster (the profile behind any miss below). */
const PROFILE_NOTES = [
  "## What the profiles showed",
  "",
  "Profiles of the gateway under load (`npm run bench -- --profile gateway 1 3`, self time, idle excluded):",
  "",
  "- Before: the gateway was an Express app, and Express was most of its cost (bare `node:http` answers a",
  "  constant 402 at ~7.7× bare Express). Now it is a plain `node:http` pipeline: ~45 µs of server CPU per",
  "  402 against ~95 µs for the bare Express floor; what is left is socket writes, the access log line",
  "  (its write to stdout, serialisation and redaction) and GC (see docs/benchmarks.md).",
  "- Before: http-proxy had no agent, so every proxied request opened a new upstream connection with",
  "  `Connection: close`; now each upstream has a keep-alive agent (`upstreams[].maxSockets`/`maxFreeSockets`).",
  "- Before: helmet ran its ~12 middlewares per request (~10 % of the 402 path), a `GatewayError` (with its",
  "  stack trace) was built for every plain 402 (~6 %), seven router layers ran before the paywall, and the",
  "  path was normalised twice. Now: helmet's headers are computed once and replayed, the plain offer's error",
  "  is built once, the front and paywall middleware each run as one router layer, the path is normalised once.",
  "- The access log writes through pino's asynchronous stdout destination (flushed when the gateway has",
  "  drained); the log line (pino's redaction ~2 % of it) and the metrics still cost ~7 % of the 402 path",
  "  (count profile after the changes below), the security headers ~12 more `setHeader` calls and bytes.",
  "- The gateway marked each normalised request in a WeakMap (~1 % of its 402 path); now a symbol property.",
  "- Before: `x402()` rebuilt the offer (JSON and base64 of PAYMENT-REQUIRED, and the JSON body) on every 402",
  "  (~6–8 % of the 402 path) and added a 'close' listener per request. Now a route without a sign-in challenge",
  "  keeps its encoded 402 per resource URL (at most 256 per route), with a challenge only the extensions are",
  "  encoded per request, and the listener is gone. What is left on the 402 path is mostly shared with the bare",
  "  Express floor (socket writes, `writev`, ~25 %; GC ~10 %; Express's router and request/response setup);",
  "  the floor's `res.send` also hashes an ETag, which the paywall's 402 does not.",
  "- Before: decoding a PAYMENT-SIGNATURE cost ~15–25 µs, most of it in a JSON reviver (prototype-key",
  "  protection) and in regexes over the base64; the EVM payload was parsed by zod four times per request.",
  "  Now the reviver runs only when the text could name a prototype key, base64 is checked by a table walk,",
  "  and the EVM payload is parsed once (decode + identity + match: ~18 µs → ~13 µs).",
  "- What is left on `x402()`'s paid path (profile by sample count): socket writes ~13–25 %, GC ~9 %, Express",
  "  and the route handler's `res.send` (with its ETag) ~20 %, all also paid by the official middleware's",
  "  request. The paywall's own work: holding the response ~4–11 % (its four own methods: each property added",
  "  to an Express response costs a new hidden class), base64 JSON decode ~5 % (zod is skipped for a payment",
  "  the schema would return unchanged), receipt ~2 %, route match ~2 %, ledger reserve/spend ~2 %, and the",
  "  promise chain of a paid request (reserve, verify, hold, settle, spend) with the garbage it leaves. Server",
  "  CPU per paid request on the same load: `x402()` ~1.1× the official; 1.5× needs about half of what the",
  "  paywall adds to gone, and no item left is over ~11 % (see docs/benchmarks.md).",
  "- On the free proxied path, the gateway and the hpm floor spend the same on the proxying itself",
  "  (`writeLatin1String`/`writev` socket writes ~25 %, GC ~10 %, http-proxy); the gateway's extra is its",
  "  own middleware (~6 %: access log, forwarded headers, timeouts) and ~12 more response headers",
  "  (the security headers), which show up as more `writev` time.",
  "- On the paid path the gateway forwards to an upstream process and holds its answer until settlement,",
  "  while `x402()` answers from a handler in the same process: the gateway pays the proxy hop measured in",
  "  scenario 3 on every paid request, and its upstream competes for the same 2 cores. The gateway runs the",
  "  same paywall code as `x402()`, so making the paywall cheaper speeds both and leaves this ratio to the hop.",
  "- Paid path with the facilitator over HTTP (scenario 11, issue #32): `fetch` (undici, its streams, abort",
  "  signals and transfer machinery) was ~25 % of a paid request's CPU; the facilitator client now uses Node's",
  "  `http` on a keep-alive agent, requirements are serialised once, the Redis spend is one pipelined round",
  "  trip; CBOR (scenario 12) parsed the payer's Ed25519 key and re-encoded its PaymentRequests per request,",
  "  both now kept. Left: socket writes (~20 %: the response and two facilitator calls), GC (~12 %), Node's",
  "  HTTP machinery (see docs/benchmarks.md). Second pass: Node's `http` client (~15 %) replaced by an undici",
  "  pool driven through `dispatch` (7 %); route answers memoised (matching was 10 % of the 402 path); Node's",
  "  floor (verify + settle on bare `node:http`) is now in the table.",
  "- Hono (scenario 14, issue #33): `x402Hono()`'s 402 was ~43 µs of CPU against the bare Hono floor's 16 µs: GC",
  "  ~29 %, undici `Headers` built from `@hono/node-server`'s lazy request headers and for its answer's header list,",
  "  two extra promise turns and a WeakMap entry per request. Now the answer is built synchronously with a plain",
  "  header record, the request headers are read by name, the URL parsed only when needed: ~24 µs (see",
  "  docs/benchmarks.md).",
  "- Solana paid path (scenario 15, issue #36): `x402()` spends about what it does on EVM per paid request;",
  "  what Solana adds is the ledger identity (parsing the transaction ~12 %, base58 of its account keys ~5 %",
  "  of that) and a failing EVM payload parse in the requirements match (~4 %) (see docs/benchmarks.md).",
  "- Two workers on this 2-core machine share the cores with the load generator (and, on the shared CI",
  "  machine, with other jobs); the cluster's primary also hands every connection to a worker.",
  "",
];

function render(sections: Section[], settings: BenchSettings, quick: boolean, seconds: number): string {
  const cpu = cpus();
  const targets = sections.flatMap((section) =>
    section.targets.map((target) => ({ ...target, id: section.id })),
  );
  const met = targets.filter((target) => target.met).length;
  return [
    "# Benchmark results",
    "",
    "Written by `npm run bench` (see docs/benchmarks.md). Absolute numbers drift with the machine and whatever",
    "else runs on it; the ratios, taken round by round between contenders that alternate, hold better.",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Node: ${process.version}`,
    `- Machine: ${cpu.length} cores, ${cpu[0]?.model ?? "unknown CPU"}, ${process.platform}/${process.arch}`,
    `- Load: autocannon 8 from the runner process, each server in its own process; ${settings.connections} connections,`,
    `  ${settings.rounds} alternating rounds of ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up per contender (${PAID_OVER_HTTP.warmupSeconds} s in the paid scenarios over HTTP)${quick ? " (--quick)" : ""}`,
    `- Run time: ${seconds.toFixed(0)} s`,
    "",
    `## Targets: ${met} of ${targets.length} met`,
    "",
    "| scenario | target | measured | |",
    "|---|---|--:|---|",
    ...targets.map((t) => `| ${t.id} | ${t.text} | ${t.measured} | ${t.met ? "met" : "**MISSED**"} |`),
    "",
    ...sections.flatMap((section) => [`## ${section.id}. ${section.title}`, "", ...section.lines, ""]),
    ...PROFILE_NOTES,
  ].join("\n");
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { quick: { type: "boolean" }, profile: { type: "string" }, help: { type: "boolean" } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const unknown = positionals.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id));
  if (unknown.length > 0) {
    console.error(
      `unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.map((s) => s.id).join(", ")}\n\n${USAGE}`,
    );
    return 2;
  }
  const quick = values.quick === true;
  const settings: BenchSettings = {
    connections: 50,
    seconds: quick ? 2 : 4,
    warmupSeconds: 1,
    rounds: 3,
    payments: quick ? 20_000 : 80_000,
    profile: values.profile,
    log: (line) => console.log(line),
  };
  const selected = positionals.length > 0 ? SCENARIOS.filter((s) => positionals.includes(s.id)) : SCENARIOS;
  let pool: Promise<SignedPayload[]> | undefined;
  const paymentPool = () => (pool ??= loadPaymentPool(settings.payments, settings.log));

  const begun = performance.now();
  const sections: Section[] = [];
  for (const scenario of selected) {
    console.log(`scenario ${scenario.id}…`);
    const section = await scenario.run(settings, paymentPool);
    console.log([`${section.id}. ${section.title}`, ...section.lines].join("\n"));
    for (const target of section.targets)
      console.log(`  ${target.met ? "met   " : "MISSED"} ${target.text}: ${target.measured}`);
    sections.push(section);
  }
  const full = !quick && selected.length === SCENARIOS.length;
  const out = full ? join(HERE, "RESULTS.md") : join(HERE, "..", ".cache", "RESULTS-partial.md");
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, render(sections, settings, quick, (performance.now() - begun) / 1000));
  console.log(`wrote ${out}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
