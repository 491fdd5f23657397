import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../../src/dev/devAccounts.js";
import { createGatewayMetrics } from "../../src/gateway/createGatewayMetrics.js";
import { startRedisServer, type RedisServer } from "../../reliability/support/startRedisServer.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { ask, paid } from "./support/faultLog.js";
import { signInHeader } from "./support/signIn.js";
import { ALERT_RULES, expectRuleFed, RULES_PROVOKED_ON_REPLICAS, selectors } from "./support/promQuery.js";
import { startFaultRig, type FaultRig } from "./support/startFaultRig.js";

const DASHBOARD = new URL("../../examples/observability/x402-gateway.grafana.json", import.meta.url);
const PUBLIC_URL = "http://gateway.test";

const rules = ALERT_RULES;

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
      "X402LedgerErrors",
      "X402LedgerUnavailable",
      "X402LedgerWaitTimeouts",
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

    const text = await (await fetch(rig.gateway.metricsUrl!)).text();
    for (const rule of rules.filter((rule) => !RULES_PROVOKED_ON_REPLICAS.includes(rule.alert))) {
      expectRuleFed(rule, text);
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
