import { randomBytes } from "node:crypto";
import express from "express";
import { Redis } from "ioredis";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402, type X402Middleware } from "../../src/adapters/express.js";
import { redisKeyPrefixes } from "../../src/recognition/redisKeyPrefixes.js";
import { PAY_TO } from "../support/payments.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { siwxSignIn } from "../support/siwxSignIn.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

// Public anvil dev key: it only signs here; the Starknet double says it is recognized.
const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PUBLIC_URL = "https://api.test";
const SECRET = "one-sign-in-secret-for-every-instance-here-0123";
const run = randomBytes(6).toString("hex");
// Two deployments sharing one Redis: A runs two instances, B one; each names its own ledger.keyPrefix.
const PREFIX_A = `test:nonce-prefix:${run}:a:`;
const PREFIX_B = `test:nonce-prefix:${run}:b:`;

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let redis: Redis;
const apps: Array<{ paywall: X402Middleware; server: LoopbackServer }> = [];
let a1: string;
let a2: string;
let b: string;

async function instance(keyPrefix: string): Promise<string> {
  const paywall = x402({
    facilitator: { url: facilitator.url },
    payTo: PAY_TO,
    network: "eip155:84532",
    publicUrl: PUBLIC_URL,
    ledger: { type: "redis", url: REDIS_URL, keyPrefix },
    recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 1_000, signInSecret: SECRET },
    routes: { "GET /api/report": { price: "$0.001" } },
  });
  const app = express();
  app.use(paywall);
  app.get("/api/report", (_req, res) => res.json({ report: "ok" }));
  const server = await listenOnLoopback(app);
  apps.push({ paywall, server });
  return server.url;
}

beforeAll(async () => {
  rpc = await startStarknetRpcServer({ call: () => ["0x1"] });
  facilitator = await startFacilitatorDouble();
  redis = new Redis(REDIS_URL);
  a1 = await instance(PREFIX_A);
  a2 = await instance(PREFIX_A);
  b = await instance(PREFIX_B);
});

afterAll(async () => {
  await Promise.all(apps.map(({ server }) => server.close()));
  await Promise.all(apps.map(({ paywall }) => paywall.close()));
  const keys = await redis.keys(`test:nonce-prefix:${run}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await facilitator.close();
  await rpc.close();
});

/** A SIGN-IN-WITH-X header for a challenge `base` issued, and its nonce. */
async function signIn(base: string): Promise<{ header: string; nonce: string }> {
  const offer = await fetch(`${base}/api/report`);
  expect(offer.status).toBe(402);
  return siwxSignIn(offer.headers.get("payment-required") ?? "", payer, `${PUBLIC_URL}/api/report`);
}

const withSignIn = (base: string, header: string) =>
  fetch(`${base}/api/report`, { headers: { "sign-in-with-x": header } });

describe("sign-in nonces live under ledger.keyPrefix", () => {
  it("one nonce is used once per deployment: shared by A's instances, independent of B's", async () => {
    const { header, nonce } = await signIn(a1);
    expect((await withSignIn(a1, header)).status).toBe(200);
    // The other instance of A shares A's nonces: the proof is spent there too.
    const replayed = await withSignIn(a2, header);
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ details: { reason: "nonce_unknown_or_used" } });
    // B shares the Redis, not the ledger: A's used nonce is none of its business.
    expect((await withSignIn(b, header)).status).toBe(200);
    expect((await withSignIn(b, header)).status).toBe(401);
    // Where each deployment marked it: under its own prefix, nowhere else.
    expect(await redis.exists(`${PREFIX_A}siwx:nonce:${nonce}`)).toBe(1);
    expect(await redis.exists(`${PREFIX_B}siwx:nonce:${nonce}`)).toBe(1);
    expect(await redis.exists(`x402:siwx:nonce:${nonce}`)).toBe(0);
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
  });
});

describe("redisKeyPrefixes", () => {
  it.each([
    [{}, undefined, { nonces: "x402:siwx:nonce:", revoked: "x402:revoked:" }],
    [{ keyPrefix: "acme:" }, undefined, { nonces: "acme:siwx:nonce:", revoked: "acme:revoked:" }],
    [{ keyPrefix: "acme:" }, { keyPrefix: "shared:" }, { nonces: "acme:siwx:nonce:", revoked: "shared:" }],
    [{}, { keyPrefix: "shared:" }, { nonces: "x402:siwx:nonce:", revoked: "shared:" }],
  ])("ledger %j, revocation %j → %j", (ledger, revocation, expected) => {
    expect(redisKeyPrefixes(ledger, revocation)).toEqual(expected);
  });
});
