import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { decodeBase64Json } from "../src/protocol/base64Json.js";
import type { PaymentRequirements } from "../src/protocol/schemas.js";
import { NETWORK, PAY_TO, paymentHeader, PRICE, ROUTE, type SignedPayload } from "./contenders.js";
import { BUNDLED_CLI, bundleServers, load, median, startServer, type LoadResult } from "./measure.js";
import { pairedRatio } from "./httpScenario.js";
import type { BenchSettings, Section } from "./Section.js";

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const fixed = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "—";

/** 7. Memory: 1,000 paid requests at once, each 64 KiB answer held until its (slow) settlement. */
export async function memoryScenario(
  settings: BenchSettings,
  pool: () => Promise<SignedPayload[]>,
): Promise<Section> {
  const count = 1_000;
  const upstream = await startServer("upstream-64k");
  const gateway = await startServer("gateway", { upstreamUrl: upstream.url, settleDelayMs: 3_000 });
  try {
    const idle = await gateway.peakRss();
    const response = await fetch(gateway.url + ROUTE);
    await response.arrayBuffer();
    const offer = decodeBase64Json(response.headers.get("payment-required") ?? "") as {
      accepts: PaymentRequirements[];
    };
    // autocannon builds a request per connection before it starts, so more payments than requests are
    // drawn: give it enough that none is drawn twice.
    const payments = (await pool()).slice(-4 * count).map((signed) => paymentHeader(offer, signed));
    let next = 0;
    const result = await load({
      url: gateway.url + ROUTE,
      connections: count,
      seconds: 30,
      amount: count,
      timeoutSeconds: 60,
      expectStatus: 200,
      nextHeaders: () => ({ "payment-signature": payments[next++ % payments.length] as string }),
    });
    const peak = await gateway.peakRss();
    return {
      id: "7",
      title: `Memory: ${fmt(count)} concurrent paid requests through the gateway, 64 KiB answers held until settlement (settles after 3 s)`,
      lines: [
        "| measure | value |",
        "|---|--:|",
        `| answered 200 | ${fmt(result.total - result.wrong)} of ${fmt(count)} |`,
        `| peak RSS before the load, MiB | ${mib(idle)} |`,
        `| peak RSS, MiB | ${mib(peak)} |`,
        `| p50 / p99 latency, ms | ${fixed(result.p50)} / ${fixed(result.p99)} |`,
      ],
      targets: [
        {
          text: `${fmt(count)} held 64 KiB responses: peak RSS < 300 MiB`,
          measured: `${mib(peak)} MiB${result.wrong > 0 ? ` (${result.wrong} not 200)` : ""}`,
          met: peak < 300 * 1024 * 1024 && result.wrong === 0,
        },
      ],
    };
  } finally {
    await gateway.close();
    await upstream.close();
  }
}

function fmt(value: number): string {
  return value.toLocaleString("en-US");
}

/** Peak RSS (VmHWM) of a process and all its descendants, from /proc (Linux); 0 elsewhere. */
async function treePeakRss(pid: number): Promise<number> {
  let total = 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    total += Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim();
    for (const child of children ? children.split(/\s+/) : []) total += await treePeakRss(Number(child));
  } catch {
    // The process is gone or /proc is not there.
  }
  return total;
}

interface CliGateway {
  url: string;
  peakRss(): Promise<number>;
  close(): Promise<number | null>;
}

/** `x402-gateway serve --workers N` (bundled), as deployed; resolves once it says where it listens. */
async function startCliGateway(configFile: string, workers: number): Promise<CliGateway> {
  await bundleServers();
  const child = spawn(
    process.execPath,
    [BUNDLED_CLI, "serve", "--config", configFile, "--workers", String(workers)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /x402-gateway listening on (\S+)/.exec(seen);
      if (match) {
        // Keep draining stdout (the access log) so the gateway never blocks on a full pipe.
        child.stdout.off("data", onData);
        child.stdout.resume();
        resolve(match[1] as string);
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`x402-gateway serve exited (${code}):\n${seen}`)));
  });
  return {
    url,
    peakRss: () => treePeakRss(child.pid ?? 0),
    close: () =>
      new Promise<number | null>((resolve) => {
        child.once("exit", (code) => resolve(code));
        child.kill("SIGTERM");
      }),
  };
}

export async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** 8. Cores: `x402-gateway serve` with one worker and with one per core, on the 402 path. */
export async function coresScenario(settings: BenchSettings): Promise<Section> {
  const cores = availableParallelism();
  const counts = [1, Math.max(2, cores)];
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const title = `Cores: x402-gateway serve --workers 1 vs --workers ${counts[1]} (402 path, Redis ledger)`;
  if (!(await redisReachable(redisUrl))) {
    return {
      id: "8",
      title,
      lines: [
        `Skipped: more than one worker needs a Redis ledger, and none answers at ${redisUrl} (set REDIS_URL).`,
      ],
      targets: [{ text: "2 workers ≥ 1.6× one worker", measured: "not run (no Redis)", met: false }],
    };
  }
  const upstream = await startServer("upstream");
  const configFile = join(process.cwd(), ".cache", "bench-gateway.json");
  await writeFile(
    configFile,
    JSON.stringify({
      listen: { host: "127.0.0.1", port: 0 },
      facilitator: { url: "http://127.0.0.1:9" },
      payTo: PAY_TO,
      network: NETWORK,
      routes: { [`GET ${ROUTE}`]: { price: PRICE, description: "Weather" } },
      upstreams: [{ url: upstream.url }],
      ledger: { type: "redis", url: redisUrl, keyPrefix: `bench:${randomUUID()}:` },
      limits: { drainTimeoutMs: 2_000 },
    }),
  );
  const gateways: CliGateway[] = [];
  try {
    for (const count of counts) gateways.push(await startCliGateway(configFile, count));
    const run = (gateway: CliGateway, seconds: number) =>
      load({ url: gateway.url + ROUTE, connections: settings.connections, seconds, expectStatus: 402 });
    for (const gateway of gateways) await run(gateway, settings.warmupSeconds);
    const rounds: LoadResult[][] = gateways.map(() => []);
    for (let round = 0; round < settings.rounds; round++) {
      for (const [index, gateway] of gateways.entries()) {
        const result = await run(gateway, settings.seconds);
        rounds[index]?.push(result);
        settings.log(`  [8] round ${round + 1} workers=${counts[index]}: ${fixed(result.rps)} req/s`);
      }
    }
    const rss = await Promise.all(gateways.map((gateway) => gateway.peakRss()));
    const [one, many] = rounds as [LoadResult[], LoadResult[]];
    const ratio = pairedRatio(many, one);
    return {
      id: "8",
      title,
      lines: [
        `| workers | req/s (median) | p50 ms | p99 ms | peak RSS MiB (all processes) | × 1 worker | req/s per round | load generator CPU, cores (median) | unexpected answers |`,
        "|--:|--:|--:|--:|--:|--:|---|--:|--:|",
        ...counts.map((count, index) => {
          const results = rounds[index] ?? [];
          return `| ${count} | ${fixed(median(results.map((r) => r.rps)))} | ${fixed(median(results.map((r) => r.p50)))} | ${fixed(median(results.map((r) => r.p99)))} | ${mib(rss[index] ?? 0)} | ${fixed(pairedRatio(results, one), 2)} | ${results.map((r) => fixed(r.rps)).join(", ")} | ${fixed(median(results.map((r) => r.generatorCores)), 2)} | ${results.reduce((sum, r) => sum + r.wrong, 0)} |`;
        }),
        "",
        `The load generator (autocannon, in the bench's own process) shares the machine's ${cores} cores with the workers: on a`,
        "2-core machine it cannot be pinned apart from them. Its CPU is measured each round (last column): what it",
        `takes, of ${cores} cores, is what the workers cannot have, so ${counts[1]} workers can only scale by the cores left to them.`,
      ],
      targets: [
        {
          text: `${counts[1]} workers ≥ 1.6× one worker`,
          measured: `${fixed(ratio, 2)}×`,
          met: ratio >= 1.6,
        },
      ],
    };
  } finally {
    for (const gateway of gateways) await gateway.close();
    await upstream.close();
  }
}
