import { decodeBase64Json } from "../src/protocol/base64Json.js";
import type { PaymentRequirements } from "../src/protocol/schemas.js";
import { createCborPayment } from "../src/payer/createCborPayment.js";
import { CBOR_MEDIA_TYPE } from "../src/protocol/cbor/profile.js";
import {
  benchCborPayer,
  paymentHeader,
  type ContenderName,
  type ContenderOptions,
  type SignedPayload,
  type SignedSvmPayload,
} from "./contenders.js";
import { PROFILE_DIR, load, median, startServer, type LoadResult, type ServerProcess } from "./measure.js";
import { newestProfile, topSelfFrames } from "./profileSummary.js";
import type { BenchSettings, Section, TargetResult } from "./Section.js";

/** `contender` ≥ `min` × `versus` in req/s (paired), or its server CPU per request ≤ `maxCpuMicros`. */
export type HttpTarget =
  { contender: string; versus: string; min: number } | { contender: string; maxCpuMicros: number };

/** A contender run with options of its own (e.g. a Redis ledger), under an id of its own. */
export interface ContenderVariant {
  id: string;
  contender: ContenderName;
  options: ContenderOptions;
}

type Entry = ContenderName | ContenderVariant;
const idOf = (entry: Entry) => (typeof entry === "string" ? entry : entry.id);

export interface HttpScenario {
  id: string;
  title: string;
  /** In the order they take turns: A B C, A B C… */
  contenders: Entry[];
  /** The contender (id) ratios are given against. */
  floor: string;
  path: string;
  expectStatus: number;
  upstream: boolean;
  /** Each request carries a distinct pre-signed payment. */
  paid: boolean;
  /**
   * `cbor`: the payments are CBOR intents (POST retries in `application/x402+cbor`), signed in this process
   * against the contender's current offer before each run; the route's CBOR facilitator runs in its own process.
   */
  format?: "json" | "cbor";
  /** The facilitator runs in its own process and every contender reaches it over HTTP. */
  facilitator?: boolean;
  /** Options given to every server of the scenario, the facilitator included (e.g. a Solana network). */
  options?: ContenderOptions;
  /** The pre-signed payments, when not the EVM pool (e.g. official `@x402/svm` transactions). */
  payments?: () => Promise<Array<SignedPayload | SignedSvmPayload>>;
  targets: HttpTarget[];
  /**
   * Warm-up per contender, in s, when longer than the bench's: a paid contender takes a few thousand requests
   * before its JIT and heap settle (its first round ran ~1.5× the CPU per request of the next after 1 s).
   */
  warmupSeconds?: number;
  /** Labels shown in the table instead of the contender ids. */
  labels: Partial<Record<string, string>>;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const fixed = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "—";

/** Paired ratio: the median over rounds of (contender's req/s ÷ the other's in the same round). */
export function pairedRatio(a: LoadResult[], b: LoadResult[]): number {
  return median(a.map((round, index) => round.rps / (b[index]?.rps ?? Number.NaN)));
}

const CBOR_RETRY_HEADERS = {
  accept: `${CBOR_MEDIA_TYPE}, application/json;q=0.5`,
  "content-type": CBOR_MEDIA_TYPE,
};
/** CBOR intents must differ: each is signed for its own second (one payer key, one clock for every contender). */
let cborSecond = Math.floor(Date.now() / 1000);

/**
 * `count` CBOR payments of `url`'s current offer, signed now (an offer lives until the end of its minute,
 * plus the facilitator's skew), handed out one per request; past `count`, signed as asked for.
 */
async function cborPayments(url: string, count: number): Promise<() => Record<string, string>> {
  const response = await fetch(url, { headers: { accept: CBOR_RETRY_HEADERS.accept } });
  const offer = response.headers.get("payment-required");
  await response.arrayBuffer();
  if (offer === null) throw new Error(`${url} answered ${response.status} without PAYMENT-REQUIRED`);
  const key = benchCborPayer();
  const sign = () => createCborPayment({ offer, key, now: () => cborSecond++ * 1000 }).header;
  const headers = Array.from({ length: count }, sign);
  let cursor = 0;
  return () => ({ "payment-signature": headers[cursor++] ?? sign() });
}

async function offerOf(url: string): Promise<{ resource?: unknown; accepts: PaymentRequirements[] }> {
  const response = await fetch(url);
  const header = response.headers.get("payment-required");
  await response.arrayBuffer();
  if (header === null) throw new Error(`${url} answered ${response.status} without PAYMENT-REQUIRED`);
  return decodeBase64Json(header) as { resource?: unknown; accepts: PaymentRequirements[] };
}

/**
 * Run one HTTP scenario: servers in their own processes, warm-up, alternating rounds, peak RSS; with
 * `--profile <id>` of one of its contenders, the top self-time frames of that contender's profile.
 */
export async function runHttpScenario(
  scenario: HttpScenario,
  settings: BenchSettings,
  pool: () => Promise<SignedPayload[]>,
): Promise<Section> {
  const section = await measureHttpScenario(scenario, settings, pool);
  const profiled = scenario.contenders.map(idOf).find((id) => id === settings.profile);
  if (profiled === undefined) return section;
  const file = await newestProfile(PROFILE_DIR);
  if (file === undefined) return section;
  const { frames, origins } = await topSelfFrames(file);
  const top = [...frames, "", "by origin:", ...origins];
  settings.log(`  profile of ${profiled}: ${file}\n${top.map((line) => `    ${line}`).join("\n")}`);
  return {
    ...section,
    lines: [
      ...section.lines,
      "",
      `Top self-time frames of ${profiled} (busy samples, \`${file.replace(/^.*\/\.cache\//, ".cache/")}\`):`,
      "",
      "```",
      ...top,
      "```",
    ],
  };
}

async function measureHttpScenario(
  scenario: HttpScenario,
  settings: BenchSettings,
  pool: () => Promise<SignedPayload[]>,
): Promise<Section> {
  const started: ServerProcess[] = [];
  try {
    let upstreamUrl: string | undefined;
    if (scenario.upstream) {
      const upstream = await startServer("upstream");
      started.push(upstream);
      upstreamUrl = upstream.url;
    }
    let facilitatorUrl: string | undefined;
    if (scenario.facilitator === true) {
      const facilitator = await startServer("facilitator", scenario.options);
      started.push(facilitator);
      facilitatorUrl = facilitator.url;
    }
    const cbor = scenario.format === "cbor";
    let cborFacilitatorUrl: string | undefined;
    if (cbor) {
      const facilitator = await startServer("cbor-facilitator");
      started.push(facilitator);
      cborFacilitatorUrl = facilitator.url;
    }
    const ids = scenario.contenders.map(idOf);
    const servers = new Map<string, ServerProcess>();
    for (const entry of scenario.contenders) {
      const id = idOf(entry);
      const [name, own] = typeof entry === "string" ? [entry, {}] : [entry.contender, entry.options];
      const server = await startServer(
        name,
        { ...scenario.options, upstreamUrl, facilitatorUrl, cborFacilitatorUrl, ...own },
        settings.profile === id,
      );
      started.push(server);
      servers.set(id, server);
    }
    const payments = scenario.paid && !cbor ? await (scenario.payments ?? pool)() : [];
    const exhausted = new Set<string>();
    const headerSources = new Map<string, () => Record<string, string>>();
    if (scenario.paid && !cbor) {
      for (const [name, server] of servers) {
        const offer = await offerOf(server.url + scenario.path);
        const headers = payments.map((signed) => paymentHeader(offer, signed));
        let cursor = 0;
        headerSources.set(name, () => {
          if (cursor >= headers.length) {
            exhausted.add(name);
            cursor = 0;
          }
          return { "payment-signature": headers[cursor++] as string };
        });
      }
    }
    const run = async (name: string, seconds: number) => {
      const url = (servers.get(name) as ServerProcess).url + scenario.path;
      if (cbor) headerSources.set(name, await cborPayments(url, seconds * 1_500));
      return load({
        url,
        connections: settings.connections,
        seconds,
        expectStatus: scenario.expectStatus,
        nextHeaders: headerSources.get(name),
        ...(cbor ? { method: "POST" as const, headers: CBOR_RETRY_HEADERS } : {}),
      });
    };

    for (const name of ids) await run(name, scenario.warmupSeconds ?? settings.warmupSeconds);
    const rounds = new Map<string, LoadResult[]>(ids.map((name) => [name, []]));
    // Server CPU per request: what the contender's own process spent, whatever else shares the cores.
    const cpu = new Map<string, number[]>(ids.map((name) => [name, []]));
    for (let round = 0; round < settings.rounds; round++) {
      // A rotating order: round r starts with the r-th contender, so none is always first or last.
      for (const name of [...ids.slice(round % ids.length), ...ids.slice(0, round % ids.length)]) {
        const server = servers.get(name) as ServerProcess;
        const before = await server.cpuMicros();
        const result = await run(name, settings.seconds);
        const perRequest = ((await server.cpuMicros()) - before) / result.total;
        rounds.get(name)?.push(result);
        cpu.get(name)?.push(perRequest);
        settings.log(
          `  [${scenario.id}] round ${round + 1} ${name}: ${fixed(result.rps)} req/s, ${fixed(perRequest)} µs CPU/req` +
            (result.wrong > 0 ? `, ${result.wrong} unexpected answers` : ""),
        );
      }
    }
    const rss = new Map<string, number>();
    for (const [name, server] of servers) rss.set(name, await server.peakRss());

    const floor = rounds.get(scenario.floor) ?? [];
    const label = (name: string) => scenario.labels[name] ?? name;
    const lines = [
      `| contender | req/s (median) | p50 ms | p99 ms | peak RSS MiB | × ${label(scenario.floor)} | req/s per round | server CPU µs/req | unexpected answers |`,
      "|---|--:|--:|--:|--:|--:|---|--:|--:|",
    ];
    for (const name of ids) {
      const results = rounds.get(name) ?? [];
      const wrong = results.reduce((sum, r) => sum + r.wrong, 0);
      lines.push(
        `| ${label(name)} | ${fixed(median(results.map((r) => r.rps)))} | ${fixed(median(results.map((r) => r.p50)))} | ${fixed(median(results.map((r) => r.p99)))} | ${mib(rss.get(name) ?? 0)} | ${fixed(pairedRatio(results, floor), 2)} | ${results.map((r) => fixed(r.rps)).join(", ")} | ${fixed(median(cpu.get(name) ?? []))} | ${wrong}${exhausted.has(name) ? " (payment pool exhausted: payments reused)" : ""} |`,
      );
    }
    const targets: TargetResult[] = scenario.targets.map((target) => {
      const wrong = (rounds.get(target.contender) ?? []).some((r) => r.wrong > 0);
      const flag = wrong ? " (with unexpected answers)" : "";
      if ("maxCpuMicros" in target) {
        const micros = median(cpu.get(target.contender) ?? []);
        return {
          text: `${label(target.contender)}: server CPU ≤ ${target.maxCpuMicros} µs per request`,
          measured: `${fixed(micros)} µs${flag}`,
          met: micros <= target.maxCpuMicros && !wrong,
        };
      }
      const ratio = pairedRatio(rounds.get(target.contender) ?? [], rounds.get(target.versus) ?? []);
      return {
        text: `${label(target.contender)} ≥ ${target.min}× ${label(target.versus)}`,
        measured: `${fixed(ratio, 2)}×${flag}`,
        met: ratio >= target.min && !wrong,
      };
    });
    return { id: scenario.id, title: scenario.title, lines, targets };
  } finally {
    for (const server of started.reverse()) await server.close();
  }
}
