import { randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentRequired } from "../../src/protocol/schemas.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO } from "../support/payments.js";
import { startUpstream } from "../gateway/support/startUpstream.js";
import { collect, runCli, spawnCli, waitForLine } from "./support/runCli.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
let facilitator: FacilitatorDouble;
let upstream: Awaited<ReturnType<typeof startUpstream>>;

beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
});

afterAll(async () => {
  await upstream?.stop();
  await facilitator?.close();
});

async function configFile(ledger: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gw-workers-"));
  const file = join(dir, "gateway.yaml");
  await writeFile(
    file,
    `listen: { host: 127.0.0.1, port: 0 }
facilitator: { url: "${facilitator.url}" }
payTo: "${PAY_TO}"
network: eip155:84532
upstreams:
  - url: ${upstream.url}
routes:
  GET /priced: { price: $0.01 }
ledger: ${ledger}
limits: { drainTimeoutMs: 5000 }
logging: { level: info }
`,
  );
  return file;
}

/** One request on its own connection, so the cluster's primary hands each to the next worker. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("x402-gateway serve --workers", () => {
  it("refuses more than one worker without a shared ledger", async () => {
    const result = await runCli("src/cli/x402-gateway.ts", [
      "serve",
      "--config",
      await configFile("{ type: memory }"),
      "--workers",
      "2",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--workers 2 needs a shared ledger: set ledger: \{ type: redis/);
  });

  it("refuses a --workers that is not a count", async () => {
    const file = await configFile("{ type: memory }");
    for (const value of ["0", "two", "1.5"]) {
      const result = await runCli("src/cli/x402-gateway.ts", ["serve", "--config", file, "--workers", value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--workers must be a positive number or auto/);
    }
  });

  it("two workers share a Redis ledger: the same payment sent at once to both pays for one response", async () => {
    const file = await configFile(
      `{ type: redis, url: "${REDIS_URL}", keyPrefix: "test:workers:${randomUUID()}:" }`,
    );
    const child = spawnCli("src/cli/x402-gateway.ts", ["serve", "--config", file, "--workers", "2"]);
    const done = collect(child);
    // A hang (seen once, in CI's loaded Node 24 pass) fails here with what the gateway printed, not as a bare timeout.
    const printed = { stdout: "", stderr: "" };
    child.stdout?.on("data", (chunk: Buffer | string) => (printed.stdout += String(chunk)));
    child.stderr?.on("data", (chunk: Buffer | string) => (printed.stderr += String(chunk)));
    let step = "starting";
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `stuck at: ${step}\n--- stdout (last 4000) ---\n${printed.stdout.slice(-4000)}\n--- stderr ---\n${printed.stderr.slice(-4000)}`,
            ),
          ),
        50_000,
      );
    });
    const exercise = async () => {
      step = "waiting for both workers to listen";
      const [, url, metricsUrl] = await waitForLine(
        child,
        // The workers' log lines may come between the two.
        /x402-gateway listening on (http:\/\/\S+) \(2 workers\)[\s\S]*x402-gateway metrics on (http:\/\/\S+) \(2 workers\)/,
      );

      step = "free requests";
      // Both workers answer: each request line in the log names its worker.
      for (let i = 0; i < 8; i++) expect((await get(`${url}/free/${i}`)).status).toBe(200);

      const offer = await get(`${url}/priced`);
      expect(offer.status).toBe(402);
      const accepted = (JSON.parse(offer.body) as PaymentRequired).accepts[0];
      const payment = header(evmPayment(accepted as PaymentRequired["accepts"][number]));
      const settlesBefore = facilitator.count("settle");
      step = "eight copies of one payment";
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => get(`${url}/priced`, { "payment-signature": payment })),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.every((status) => status === 200 || status === 402 || status === 409)).toBe(true);
      expect(facilitator.count("settle") - settlesBefore).toBe(1);
      const refusals = answers
        .filter((answer) => answer.status !== 200)
        .map((answer) => JSON.parse(answer.body));
      for (const refusal of refusals) {
        expect(["payment_already_used", "payment_in_progress"]).toContain(refusal.error);
      }

      // The primary's metrics listener counts the whole cluster (prom-client's aggregation of both
      // workers): the eight free requests went to both workers; a scrape is not a request to the gateway.
      step = "scraping the primary's metrics";
      for (let scraped = 0; scraped < 2; scraped++) {
        const scrape = await get(metricsUrl!);
        expect(scrape.status).toBe(200);
        const count = (labels: string) =>
          Number(
            new RegExp(`^x402_gateway_requests_total\\{${labels}\\} (\\d+)$`, "m").exec(scrape.body)?.[1],
          );
        expect(count('route="unpriced",outcome="free",code="200"')).toBe(8);
        expect(count('route="GET /priced",outcome="offered",code="402"')).toBe(1);
        expect(count('route="GET /priced",outcome="paid",code="200"')).toBe(1);
        const rejected = [
          ...scrape.body.matchAll(
            /^x402_gateway_requests_total\{route="GET \/priced",outcome="rejected",code="\w+"\} (\d+)$/gm,
          ),
        ];
        expect(rejected.reduce((sum, match) => sum + Number(match[1]), 0)).toBe(refusals.length);
        // Node's process metrics, from both workers: one series per metric, not one per worker.
        expect(scrape.body.match(/^process_resident_memory_bytes \d+/gm)).toHaveLength(1);
        expect(scrape.body).toMatch(/^nodejs_eventloop_lag_seconds /m);
      }
      step = "stopping on SIGTERM";
      child.kill("SIGTERM");
      return done;
    };
    let result: Awaited<typeof done>;
    try {
      result = await Promise.race([exercise(), stuck]);
    } finally {
      clearTimeout(timer);
      child.kill("SIGTERM");
    }
    expect(result.code).toBe(0);
    const workers = new Set(
      result.stdout
        .split("\n")
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => (JSON.parse(line) as { worker?: number }).worker),
    );
    expect(workers).toEqual(new Set([1, 2]));
    expect(result.stdout.match(/"msg":"draining"/g)).toHaveLength(2);
    expect(result.stdout.match(/"msg":"stopped"/g)).toHaveLength(2);
    expect(result.stdout.trim().split("\n").at(-1)).toBe("x402-gateway stopped (2 workers)");
  }, 60_000);
});
