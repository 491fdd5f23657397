import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { devAccount } from "../../src/dev/devAccounts.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import { closedPort } from "../gateway/support/startUpstream.js";
import {
  startStarknetRpcServer,
  type RpcServerMode,
  type StarknetRpcServer,
} from "../support/starknetRpcServer.js";
import { ask, expectAlive, FaultLog } from "./support/faultLog.js";
import { signInHeader } from "./support/signIn.js";

const PUBLIC_URL = "http://gateway.test";
// Public anvil dev keys: they only sign sign-in messages here.
const known = privateKeyToAccount(devAccount(3).privateKey);
const newcomer = privateKeyToAccount(devAccount(4).privateKey);

let rpc: StarknetRpcServer;
let upstream: CountingUpstream;
let gateway: GatewayProcess;
const log = new FaultLog("recognition");

beforeAll(async () => {
  [rpc, upstream] = await Promise.all([
    startStarknetRpcServer({ call: () => ["0x1"] }),
    startCountingUpstream(),
  ]);
  gateway = await spawnGateway({
    listen: { host: "127.0.0.1", port: 0 },
    // No payment is made here: sign-in is decided before the facilitator would be asked.
    facilitator: { url: `http://127.0.0.1:${await closedPort()}` },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:84532",
    publicUrl: PUBLIC_URL,
    upstreams: [{ url: upstream.url }],
    // Every answer is re-asked (fresh for 1 ms), so each request meets the fault; a past 0x1 may be served stale for a minute.
    recognition: {
      rpcUrl: rpc.url,
      contract: "0x0456abc",
      timeoutMs: 500,
      positiveTtlMs: 1,
      staleIfErrorMs: 60_000,
    },
    routes: { "GET /member": { price: "$0.001" } },
    logging: { level: "error" },
  });
}, 120_000);

afterAll(async () => {
  log.write({ gatewayExit: await gateway?.stop() });
  await upstream?.close();
  // The "down" case closed it already, unless an earlier case failed.
  await rpc?.close().catch(() => undefined);
});

const signIn = async (account: typeof known) =>
  ask(`${gateway.url}/member`, {
    "sign-in-with-x": await signInHeader(account, gateway.url, "/member", PUBLIC_URL),
  });

describe("the Starknet node failing under a real gateway process: recognition fails closed", () => {
  it("a recognized payer is let in while the node answers", async () => {
    expect((await signIn(known)).status).toBe(200);
  });

  const faults: Array<{ name: string; mode: RpcServerMode | "down" }> = [
    { name: "answering garbage", mode: "garbage" },
    { name: "answering HTTP 500", mode: "http500" },
    { name: "answering a JSON-RPC error", mode: { rpcError: -32603 } },
    { name: "slow (past the 500 ms timeout)", mode: "hang" },
    { name: "down", mode: "down" },
  ];
  it.each(faults)(
    "node $name: a new payer gets the 402 offer, a recently recognized one is served stale",
    async ({ name, mode }) => {
      if (mode === "down") await rpc.close();
      else rpc.setMode(mode);
      const stranger = await signIn(newcomer);
      log.add(`node ${name}: unknown payer`, "402 payment_required", stranger, 0);
      expect({ status: stranger.status, code: stranger.code }).toEqual({
        status: 402,
        code: "payment_required",
      });
      const regular = await signIn(known);
      log.add(`node ${name}: payer recognized before`, "200 (stale 0x1, staleIfErrorMs)", regular, 0, {
        free: true,
      });
      expect(regular.status).toBe(200);
      await expectAlive(gateway);
    },
    20_000,
  );

  it("counts the errors and the stale answers for the operators", async () => {
    const metrics = await (await fetch(gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/x402_gateway_recognition_stale_served_total [1-9]/);
    expect(metrics).toMatch(
      /x402_gateway_recognition_rpc_duration_seconds_count\{outcome="error",error="[a-z_]+"\} [1-9]/,
    );
    expect(upstream.hits.get("/member")).toBe(1 + faults.length);
  });
});
