import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { parse } from "yaml";
import { devAccount } from "../../src/dev/devAccounts.js";
import { createGatewayMetrics } from "../../src/gateway/createGatewayMetrics.js";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { ask, paid } from "./support/faultLog.js";
import { signInHeader } from "./support/signIn.js";
import { startFaultRig, type FaultRig } from "./support/startFaultRig.js";

const RULES = new URL("../../examples/observability/x402-gateway.rules.yml", import.meta.url);
const DASHBOARD = new URL("../../examples/observability/x402-gateway.grafana.json", import.meta.url);
const PUBLIC_URL = "http://gateway.test";

interface Rule {
  alert: string;
  expr: string;
}
const rules = (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (group) => group.rules,
);

/** Every `x402_gateway_…{label="value",…}` selector of a PromQL expression, and its `by (…)` labels. */
function selectors(expr: string): Array<{ name: string; matchers: Record<string, string>; by: string[] }> {
  const by = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, labels]) =>
    labels!.split(",").map((label) => label.trim()),
  );
  return [...expr.matchAll(/(x402_gateway_[a-z_]+)(?:\{([^}]*)\})?/g)].map(([, name, inner]) => ({
    name: name!,
    matchers: Object.fromEntries(
      [...(inner ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
    ),
    // Prometheus adds `instance` at scrape time.
    by: by.filter((label) => label !== "instance"),
  }));
}

/** The samples of a Prometheus text page: metric name and labels of each line. */
function samples(text: string): Array<{ name: string; labels: Record<string, string> }> {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /);
      const labels = Object.fromEntries(
        [...(match?.[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
      );
      return { name: match?.[1] ?? "", labels };
    });
}

let redis: RedisServer;
let rpc: StarknetRpcServer;
let rig: FaultRig;

beforeAll(async () => {
  [redis, rpc] = await Promise.all([startRedisServer(), startStarknetRpcServer({ call: () => ["0x1"] })]);
  rig = await startFaultRig({
    redis: { url: redis.url, keyPrefix: "alerts:", commandTimeoutMs: 500 },
    publicUrl: PUBLIC_URL,
    recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 500, positiveTtlMs: 1 },
    routes: { "GET /paid/*": { price: "$0.001", recognition: false }, "GET /member": { price: "$0.001" } },
    upstreamTimeoutMs: 1_500,
  });
}, 120_000);

afterAll(async () => {
  await rig?.stop();
  await Promise.all([redis?.stop(), rpc?.close()]);
});

describe("the operators' alert rules and dashboard", () => {
  it("lists the alerts that matter", () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      "X402FacilitatorErrors",
      "X402LedgerUnavailable",
      "X402RecognitionErrors",
      "X402RecognitionStale",
      "X402SettlementFailures",
      "X402SettlementOutcomeUnknown",
      "X402UpstreamErrors",
    ]);
  });

  it("every rule is fed by a series the gateway really emits once its condition happened", async () => {
    const url = rig.gateway.url;
    const fault = async (endpoint: "verify" | "settle", mode: "http500" | "refuse", path: string) => {
      rig.proxy.modes[endpoint] = mode;
      await ask(`${url}${path}`, paid(await rig.pay(path)));
      rig.proxy.modes = {};
    };
    await fault("verify", "http500", "/paid/a"); // facilitator errors
    await fault("settle", "http500", "/paid/b"); // settlement outcome unknown (no rpcUrls here)
    await fault("settle", "refuse", "/paid/c"); // settlement failed
    await ask(`${url}/paid/reset`, paid(await rig.pay("/paid/reset"))); // upstream errors
    const member = privateKeyToAccount(devAccount(3).privateKey);
    const signIn = async () =>
      ask(`${url}/member`, { "sign-in-with-x": await signInHeader(member, url, "/member", PUBLIC_URL) });
    expect((await signIn()).status).toBe(200);
    rpc.setMode("garbage");
    expect((await signIn()).status).toBe(200); // recognition error, stale 0x1 served
    await redis.kill();
    expect((await ask(`${url}/paid/d`, paid(await rig.pay("/paid/d")))).code).toBe("ledger_unavailable");

    const page = samples(await (await fetch(`${url}/metrics`)).text());
    for (const rule of rules) {
      const used = selectors(rule.expr);
      expect(used.length, rule.alert).toBeGreaterThan(0);
      for (const selector of used) {
        const series = page.filter(
          (sample) =>
            sample.name === selector.name &&
            Object.entries(selector.matchers).every(([key, value]) => sample.labels[key] === value),
        );
        expect(
          series.length,
          `${rule.alert}: ${selector.name} ${JSON.stringify(selector.matchers)}`,
        ).toBeGreaterThan(0);
        for (const label of selector.by) {
          expect(
            series.some((sample) => label in sample.labels),
            `${rule.alert}: ${selector.name} has label ${label}`,
          ).toBe(true);
        }
      }
    }
  }, 60_000);

  it("the dashboard queries only metrics the gateway defines", async () => {
    const defined = new Set(
      (await createGatewayMetrics().registry.getMetricsAsJSON()).flatMap((metric) =>
        String(metric.type) === "histogram"
          ? [`${metric.name}_bucket`, `${metric.name}_count`, `${metric.name}_sum`]
          : [metric.name],
      ),
    );
    const dashboard = readFileSync(DASHBOARD, "utf8");
    const exprs = [...dashboard.matchAll(/"expr": "((?:[^"\\]|\\.)*)"/g)].map(
      ([, expr]) => JSON.parse(`"${expr}"`) as string,
    );
    expect(exprs.length).toBeGreaterThan(8);
    for (const expr of exprs) {
      for (const { name } of selectors(expr)) expect(defined, expr).toContain(name);
    }
  });
});
