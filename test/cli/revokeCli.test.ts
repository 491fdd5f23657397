import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { gatewayConfigSchema, type GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import { MEMBER_PUBLIC_URL, memberRouteConfig } from "../support/memberRouteConfig.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { signInHeader } from "../reliability/support/signIn.js";
import { closedPort, startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { runCli } from "./support/runCli.js";

const CLI = "src/cli/x402-gateway.ts";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PUBLIC_URL = MEMBER_PUBLIC_URL;
const TOKEN = "admin-token-for-the-revoke-cli-suite-0123456789";
// Public anvil dev keys: they only sign here.
const first = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const second = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let upstream: TestUpstream;
let dir: string;

beforeAll(async () => {
  [rpc, facilitator, upstream] = await Promise.all([
    startStarknetRpcServer({ call: () => ["0x1"] }),
    startFacilitatorDouble(),
    startUpstream(),
  ]);
  dir = await mkdtemp(join(tmpdir(), "x402-revoke-"));
});

afterAll(async () => {
  await Promise.all([upstream.stop(), facilitator.close(), rpc.close()]);
  await rm(dir, { recursive: true, force: true });
});

function config(extra: Partial<GatewayConfigInput>): GatewayConfigInput {
  return memberRouteConfig(
    { facilitatorUrl: facilitator.url, upstreamUrl: upstream.url, rpcUrl: rpc.url },
    {
      recognition: { signInSecret: "revoke-cli-suite-shared-sign-in-secret-0123456789" },
      extra: { logging: { level: "silent" }, ...extra },
    },
  );
}

async function configFile(contents: GatewayConfigInput): Promise<string> {
  const file = join(dir, `${randomUUID()}.json`);
  await writeFile(file, JSON.stringify(contents));
  return file;
}

async function signInStatus(account: typeof first, url: string): Promise<number> {
  const header = await signInHeader(account, url, "/member", PUBLIC_URL);
  const response = await fetch(`${url}/member`, { headers: { "sign-in-with-x": header } });
  await response.arrayBuffer();
  return response.status;
}

describe("x402-gateway revoke with a Redis ledger", () => {
  let gateways: GatewayProcess[] = [];
  let redisConfig: GatewayConfigInput;

  beforeAll(async () => {
    redisConfig = config({
      ledger: { type: "redis", url: REDIS_URL, keyPrefix: `test:revoke-cli:${randomUUID()}:` },
      revocation: { keyPrefix: `test:revoked:${randomUUID()}:` },
    });
    gateways = await Promise.all([spawnGateway(redisConfig), spawnGateway(redisConfig)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
  });

  it("writes to Redis and publishes: both running instances refuse the payer's sign-in on the next request", async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    expect(await signInStatus(first, a.url)).toBe(200);
    expect(await signInStatus(first, b.url)).toBe(200);
    const file = await configFile(redisConfig);
    const result = await runCli(CLI, [
      "revoke",
      "--config",
      file,
      "--payer",
      first.address,
      "--reason",
      "refund",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      revoked: true,
      payer: first.address.toLowerCase(),
      reason: "refund",
    });
    expect(await signInStatus(first, b.url)).toBe(402);
    expect(await signInStatus(first, a.url)).toBe(402);
    expect(await signInStatus(second, b.url)).toBe(200);
  }, 60_000);

  it("fails loudly (exit 1, revocation_unavailable) when Redis is down", async () => {
    const file = await configFile(
      config({
        ledger: { type: "redis", url: `redis://127.0.0.1:${await closedPort()}`, commandTimeoutMs: 300 },
      }),
    );
    const result = await runCli(CLI, ["revoke", "--config", file, "--payer", first.address]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/revocation_unavailable: Redis could not take the revocation/);
    expect(result.stdout).toBe("");
  }, 30_000);
});

describe("x402-gateway revoke through the admin endpoint", () => {
  let running: RunningGateway;
  let adminConfig: GatewayConfigInput;

  beforeAll(async () => {
    adminConfig = config({ admin: { enabled: true, token: TOKEN } });
    running = await createGateway(gatewayConfigSchema.parse(adminConfig), {
      logger: createGatewayLogger("silent"),
    }).listen();
  });

  afterAll(async () => {
    await running.close();
  });

  it("POSTs to the running gateway with the config's token: the payer must pay next", async () => {
    expect(await signInStatus(second, running.url)).toBe(200);
    const file = await configFile(adminConfig);
    const result = await runCli(CLI, [
      "revoke",
      "--config",
      file,
      "--payer",
      second.address,
      "--url",
      running.url,
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ revoked: true, payer: second.address.toLowerCase() });
    expect(await signInStatus(second, running.url)).toBe(402);
  }, 30_000);

  it("exits 1 with a clear message when the token is refused, the gateway is unreachable, or there is no way to reach it", async () => {
    const wrongToken = await configFile(config({ admin: { enabled: true, token: `${TOKEN}-other` } }));
    const refused = await runCli(CLI, [
      "revoke",
      "--config",
      wrongToken,
      "--payer",
      first.address,
      "--url",
      running.url,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused admin\.token .*401 admin_unauthorized/);

    const file = await configFile(adminConfig);
    const down = await runCli(CLI, [
      "revoke",
      "--config",
      file,
      "--payer",
      first.address,
      "--url",
      `http://127.0.0.1:${await closedPort()}`,
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+\/_x402\/admin\/revocations/,
    );

    const nowhere = await configFile(config({}));
    const none = await runCli(CLI, ["revoke", "--config", nowhere, "--payer", first.address]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/in-memory ledger and no admin endpoint/);
  }, 60_000);

  it("exits 2 on a usage error", async () => {
    const file = await configFile(adminConfig);
    for (const args of [
      ["revoke", "--payer", first.address],
      ["revoke", "--config", file],
      ["revoke", "--config", file, "--payer", "0x1234"],
      ["revoke", "--config", file, "--payer", first.address, "--bogus"],
    ]) {
      const result = await runCli(CLI, args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/Usage: x402-gateway revoke/);
    }
  }, 60_000);
});
