import { AssetTable } from "../src/pricing/knownAssets.js";
import { RouteTable } from "../src/pricing/RouteTable.js";
import { RecognitionCache } from "../src/recognition/RecognitionCache.js";
import { measureCborWorstCases } from "./cborWorstCase.js";
import { compareCodecs } from "./codecs.js";
import { NETWORK, PAY_TO } from "./contenders.js";
import { median } from "./measure.js";
import type { BenchSettings, Section } from "./Section.js";

const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Operations per second of `op`, the median of `rounds` timed batches (after one untimed batch). */
async function opsPerSecond(op: () => unknown, settings: BenchSettings, async = false): Promise<number> {
  const budgetMs = settings.seconds * 40;
  const batch = async
    ? async (n: number) => {
        for (let i = 0; i < n; i++) await op();
      }
    : async (n: number) => {
        for (let i = 0; i < n; i++) op();
      };
  let size = 1_000;
  for (;;) {
    const started = performance.now();
    await batch(size);
    if (performance.now() - started > budgetMs / 4 || size > 1e8) break;
    size *= 4;
  }
  const rates: number[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    const started = performance.now();
    await batch(size);
    rates.push(size / ((performance.now() - started) / 1000));
  }
  return median(rates);
}

function routeTable(count: number): RouteTable {
  const routes: Record<string, { price: string }> = {};
  for (let i = 0; i < count; i++) routes[`GET /api/v1/resource${i}/:id`] = { price: "$0.001" };
  return new RouteTable(routes, {
    payTo: PAY_TO,
    network: NETWORK,
    maxTimeoutSeconds: 300,
    assets: new AssetTable(),
  });
}

/** Batch size for `op` so one batch takes about `ms`. */
function sizeFor(op: () => unknown, ms: number): number {
  let size = 1_000;
  for (;;) {
    const started = performance.now();
    for (let i = 0; i < size; i++) op();
    if (performance.now() - started > ms || size > 1e8) return size;
    size *= 2;
  }
}

/** One loop for every case: the same call site, so each table is timed under the same compiled code. */
function matchLoop(table: RouteTable, path: string, n: number): number {
  let priced = 0;
  for (let i = 0; i < n; i++) if (table.match("GET", path).kind === "priced") priced++;
  return priced;
}

/** 4. Route table scale: one matched and one unmatched path against ever more priced routes. */
export async function routeTableScenario(settings: BenchSettings): Promise<Section> {
  const sizes = [10, 100, 1_000, 10_000];
  // The last route in the table's order (the worst case for a linear search), and a path none prices.
  const cases = sizes.flatMap((size) => {
    const table = routeTable(size);
    const matchedPath = `/api/v1/resource${size - 1}/42`;
    if (table.match("GET", matchedPath).kind !== "priced") throw new Error(`route table ${size}: no match`);
    return [
      { size, kind: "matched" as const, table, path: matchedPath },
      { size, kind: "unmatched" as const, table, path: "/api/v1/unknown/42" },
    ];
  });
  const first = cases[0];
  const batch = first ? sizeFor(() => matchLoop(first.table, first.path, 1), settings.seconds * 10) : 1;
  // Interleaved rounds, like the HTTP contenders, so a busy moment on the machine hits every size alike.
  const samples = new Map(cases.map((c) => [c, [] as number[]]));
  const warmup = 3;
  for (let round = 0; round < warmup + settings.rounds * 5; round++) {
    for (const c of cases) {
      const started = performance.now();
      matchLoop(c.table, c.path, batch);
      if (round >= warmup) samples.get(c)?.push(batch / ((performance.now() - started) / 1000));
    }
  }
  const rates = new Map<number, { matched: number; unmatched: number }>();
  for (const c of cases) {
    const entry = rates.get(c.size) ?? { matched: 0, unmatched: 0 };
    entry[c.kind] = median(samples.get(c) ?? []);
    rates.set(c.size, entry);
  }
  // Paired, like the HTTP scenarios: per round, this size's rate ÷ 10 routes' rate, then the median.
  const ratio = (size: number, kind: "matched" | "unmatched") => {
    const of = (n: number) =>
      samples.get(cases.find((c) => c.size === n && c.kind === kind) as (typeof cases)[number]) ?? [];
    const base = of(10);
    return median(of(size).map((rate, round) => rate / (base[round] ?? Number.NaN)));
  };
  return {
    id: "4",
    title: "Route table scale: RouteTable.match, in process (ops/s)",
    lines: [
      "| priced routes | matched (last route) ops/s | × 10 routes (paired) | unmatched ops/s | × 10 routes (paired) |",
      "|--:|--:|--:|--:|--:|",
      ...sizes.map((size) => {
        const rate = rates.get(size) as { matched: number; unmatched: number };
        return `| ${fixed(size)} | ${fixed(rate.matched)} | ${fixed(ratio(size, "matched"), 2)} | ${fixed(rate.unmatched)} | ${fixed(ratio(size, "unmatched"), 2)} |`;
      }),
    ],
    targets: [
      {
        text: "10,000 routes within 10 % of 10 routes, matched",
        measured: `${fixed(ratio(10_000, "matched"), 2)}×`,
        met: ratio(10_000, "matched") >= 0.9,
      },
      {
        text: "10,000 routes within 10 % of 10 routes, unmatched",
        measured: `${fixed(ratio(10_000, "unmatched"), 2)}×`,
        met: ratio(10_000, "unmatched") >= 0.9,
      },
    ],
  };
}

/** 5. Recognition: cached answers per second, and how many chain calls 1,000 concurrent misses cost. */
export async function recognitionScenario(settings: BenchSettings): Promise<Section> {
  let calls = 0;
  const source = {
    isRecognized: async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return true;
    },
  };
  const address = `0x${"5".repeat(63)}`;
  const cache = new RecognitionCache({ source });
  await Promise.all(Array.from({ length: 1_000 }, () => cache.check(address)));
  const missCalls = calls;
  const hits = await opsPerSecond(() => cache.check(address), settings, true);
  return {
    id: "5",
    title: "Recognition: RecognitionCache, in process (the source answers after 20 ms)",
    lines: [
      "| measure | value |",
      "|---|--:|",
      `| cache hits per second (one address, awaited one by one) | ${fixed(hits)} |`,
      `| source (est_ouverte RPC) calls for 1,000 concurrent misses of one address | ${missCalls} |`,
    ],
    targets: [
      { text: "≥ 1 M cache hits/s", measured: `${fixed(hits / 1e6, 2)} M/s`, met: hits >= 1e6 },
      { text: "1 RPC call for 1,000 concurrent misses", measured: String(missCalls), met: missCalls === 1 },
    ],
  };
}

/**
 * 6. Codecs: the offer and the payment of one route as they travel in headers, base64 JSON (x402 V2)
 * against canonical CBOR (an Ed25519 intent), in process. The figures come from bench/codecs.ts.
 */
export async function codecScenario(settings: BenchSettings): Promise<Section> {
  const figures = compareCodecs({ minMs: settings.seconds * 100 });
  const ops = figures.opsPerSecond;
  const rows: Array<[string, number, number, number, number]> = [
    [
      "offer (PAYMENT-REQUIRED), encode",
      ops.offerJsonEncode,
      figures.offerJson,
      ops.offerCborEncode,
      figures.offerCbor,
    ],
    [
      "offer (PAYMENT-REQUIRED), decode",
      ops.offerJsonDecode,
      figures.offerJson,
      ops.offerCborDecode,
      figures.offerCbor,
    ],
    [
      "payment (PAYMENT-SIGNATURE), encode",
      ops.paymentJsonEncode,
      figures.paymentJson,
      ops.paymentCborEncode,
      figures.paymentCborEd25519,
    ],
    [
      "payment (PAYMENT-SIGNATURE), decode and check the form",
      ops.paymentJsonDecode,
      figures.paymentJson,
      ops.paymentCborDecode,
      figures.paymentCborEd25519,
    ],
  ];
  return {
    id: "6",
    title: "Codecs: base64 JSON against canonical CBOR headers, in process",
    lines: [
      "| operation | base64 JSON ops/s | JSON header bytes | CBOR ops/s | CBOR header bytes | CBOR/JSON bytes |",
      "|---|--:|--:|--:|--:|--:|",
      ...rows.map(
        ([name, jsonRate, jsonBytes, cborRate, cborBytes]) =>
          `| ${name} | ${fixed(jsonRate)} | ${fixed(jsonBytes)} | ${fixed(cborRate)} | ${fixed(cborBytes)} | ${fixed(cborBytes / jsonBytes, 2)} |`,
      ),
      "",
      `An ML-DSA-65 intent's PAYMENT-SIGNATURE is ${fixed(figures.paymentCborMlDsa65)} bytes (its key and signature are large).`,
    ],
    targets: [],
  };
}

/**
 * 9. CBOR decoder under attack: the costliest PAYMENT-SIGNATURE headers up to the header cap, decoded as
 * the gateway does before any signature check, in CPU ms per header. The cases come from bench/cborWorstCase.ts.
 */
export async function cborDecodeScenario(settings: BenchSettings): Promise<Section> {
  const figures = measureCborWorstCases({ rounds: settings.rounds, batchMs: settings.seconds * 50 });
  const worst = Math.max(...figures.map((f) => f.cpuMs));
  const worstCase = figures.find((f) => f.cpuMs === worst);
  return {
    id: "9",
    title:
      "CBOR decoder under attack: PAYMENT-SIGNATURE headers up to the header cap, in process (CPU per header)",
    lines: [
      "| header | base64 chars | CPU ms per header | × the Ed25519 payment (paired) | outcome |",
      "|---|--:|--:|--:|---|",
      ...figures.map(
        (f) =>
          `| ${f.name} | ${fixed(f.headerChars)} | ${fixed(f.cpuMs, 3)} | ${fixed(f.ratio, 1)} | ${f.outcome} |`,
      ),
    ],
    targets: [
      {
        text: "every PAYMENT-SIGNATURE up to the header cap refused or accepted in < 5 ms CPU",
        measured: `${fixed(worst, 3)} ms (${worstCase?.name ?? "?"})`,
        met: worst < 5,
      },
    ],
  };
}
