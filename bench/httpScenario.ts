import { decodeBase64Json } from "../src/protocol/base64Json.js";
import type { PaymentRequirements } from "../src/protocol/schemas.js";
import { paymentHeader, type ContenderName, type SignedPayload } from "./contenders.js";
import { load, median, startServer, type LoadResult, type ServerProcess } from "./measure.js";
import type { BenchSettings, Section, TargetResult } from "./Section.js";

export interface HttpTarget {
  contender: ContenderName;
  versus: ContenderName;
  min: number;
}

export interface HttpScenario {
  id: string;
  title: string;
  /** In the order they take turns: A B C, A B C… */
  contenders: ContenderName[];
  /** The contender ratios are given against. */
  floor: ContenderName;
  path: string;
  expectStatus: number;
  upstream: boolean;
  /** Each request carries a distinct pre-signed payment. */
  paid: boolean;
  targets: HttpTarget[];
  /** Labels shown in the table instead of the contender names. */
  labels: Partial<Record<ContenderName, string>>;
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

async function offerOf(url: string): Promise<{ resource?: unknown; accepts: PaymentRequirements[] }> {
  const response = await fetch(url);
  const header = response.headers.get("payment-required");
  await response.arrayBuffer();
  if (header === null) throw new Error(`${url} answered ${response.status} without PAYMENT-REQUIRED`);
  return decodeBase64Json(header) as { resource?: unknown; accepts: PaymentRequirements[] };
}

/** Run one HTTP scenario: servers in their own processes, warm-up, alternating rounds, peak RSS. */
export async function runHttpScenario(
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
    const servers = new Map<ContenderName, ServerProcess>();
    for (const name of scenario.contenders) {
      const server = await startServer(name, { upstreamUrl }, settings.profile === name);
      started.push(server);
      servers.set(name, server);
    }
    const payments = scenario.paid ? await pool() : [];
    const exhausted = new Set<ContenderName>();
    const headerSources = new Map<ContenderName, () => Record<string, string>>();
    if (scenario.paid) {
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
    const run = (name: ContenderName, seconds: number) =>
      load({
        url: (servers.get(name) as ServerProcess).url + scenario.path,
        connections: settings.connections,
        seconds,
        expectStatus: scenario.expectStatus,
        nextHeaders: headerSources.get(name),
      });

    for (const name of scenario.contenders) await run(name, settings.warmupSeconds);
    const rounds = new Map<ContenderName, LoadResult[]>(scenario.contenders.map((name) => [name, []]));
    // Server CPU per request: what the contender's own process spent, whatever else shares the cores.
    const cpu = new Map<ContenderName, number[]>(scenario.contenders.map((name) => [name, []]));
    for (let round = 0; round < settings.rounds; round++) {
      for (const name of scenario.contenders) {
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
    const rss = new Map<ContenderName, number>();
    for (const [name, server] of servers) rss.set(name, await server.peakRss());

    const floor = rounds.get(scenario.floor) ?? [];
    const label = (name: ContenderName) => scenario.labels[name] ?? name;
    const lines = [
      `| contender | req/s (median) | p50 ms | p99 ms | peak RSS MiB | × ${label(scenario.floor)} | req/s per round | server CPU µs/req | unexpected answers |`,
      "|---|--:|--:|--:|--:|--:|---|--:|--:|",
    ];
    for (const name of scenario.contenders) {
      const results = rounds.get(name) ?? [];
      const wrong = results.reduce((sum, r) => sum + r.wrong, 0);
      lines.push(
        `| ${label(name)} | ${fixed(median(results.map((r) => r.rps)))} | ${fixed(median(results.map((r) => r.p50)))} | ${fixed(median(results.map((r) => r.p99)))} | ${mib(rss.get(name) ?? 0)} | ${fixed(pairedRatio(results, floor), 2)} | ${results.map((r) => fixed(r.rps)).join(", ")} | ${fixed(median(cpu.get(name) ?? []))} | ${wrong}${exhausted.has(name) ? " (payment pool exhausted: payments reused)" : ""} |`,
      );
    }
    const targets: TargetResult[] = scenario.targets.map(({ contender, versus, min }) => {
      const ratio = pairedRatio(rounds.get(contender) ?? [], rounds.get(versus) ?? []);
      const wrong = (rounds.get(contender) ?? []).some((r) => r.wrong > 0);
      return {
        text: `${label(contender)} ≥ ${min}× ${label(versus)}`,
        measured: `${fixed(ratio, 2)}×${wrong ? " (with unexpected answers)" : ""}`,
        met: ratio >= min && !wrong,
      };
    });
    return { id: scenario.id, title: scenario.title, lines, targets };
  } finally {
    for (const server of started.reverse()) await server.close();
  }
}
