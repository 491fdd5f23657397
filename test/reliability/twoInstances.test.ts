import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { writeFigures } from "../../reliability/support/figures.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import { paymentSigner } from "../../reliability/support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import { signInHeader } from "./support/signIn.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** Payments raced between the two instances. */
const RACES = 50;
/** $0.001 of TestUSDC (6 decimals). */
const PRICE = 1_000n;

let stack: LocalStack;
let upstream: CountingUpstream;
let rpc: StarknetRpcServer;
let gateways: GatewayProcess[] = [];
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  [stack, upstream, rpc] = await Promise.all([
    startLocalStack(),
    startCountingUpstream(),
    startStarknetRpcServer({ call: () => ["0x1"] }),
  ]);
  const config = localGatewayConfig({
    stack,
    upstreamUrl: upstream.url,
    redis: { url: REDIS_URL, keyPrefix: `test:reliability:${randomUUID()}:` },
    publicUrl: "http://gateway.test",
    // Instances share the sign-in secret, as docs/recognition.md tells operators to.
    recognition: {
      rpcUrl: rpc.url,
      contract: "0x0456abc",
      timeoutMs: 2_000,
      signInSecret: "reliability-suite-shared-sign-in-secret-0123456789",
    },
    routes: { "GET /paid": { price: "$0.001", recognition: false }, "GET /member": { price: "$0.001" } },
  });
  gateways = await Promise.all([spawnGateway(config), spawnGateway(config)]);
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await Promise.all([upstream?.close(), rpc?.close(), stack?.stop()]);
  writeFigures("two-instances", figures);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(url: string, header: string): Promise<{ status: number; code?: string }> {
  const response = await fetch(url, { headers: { "payment-signature": header } });
  const body = (await response.json()) as { error?: string };
  return { status: response.status, code: response.ok ? undefined : body.error };
}

describe("two gateway processes sharing Redis", () => {
  it(`the same fresh payment sent to both at once, ${RACES} times: one 2xx, one transfer, one upstream hit each`, async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const chain = await watchPayee(stack);
    const settlesBefore = stack.facilitator.calls.settle;
    const headers = await paymentSigner(
      stack.accounts.payer.privateKey,
      stack.network,
      stack.token.address,
    ).sign(`${a.url}/paid`, RACES);

    const outcomes: Array<Array<{ status: number; code?: string }>> = [];
    const race = async (header: string) => {
      const both = await Promise.all(
        [a, b].map(async (gateway) => {
          // Up to 150 ms apart: some pairs overlap (409), some arrive after the settlement (402 already used).
          await sleep(Math.random() * 150);
          return send(`${gateway.url}/paid`, header);
        }),
      );
      outcomes.push(both);
    };
    // Five races at a time: the chain settles them one by one anyway.
    for (let i = 0; i < RACES; i += 5) await Promise.all(headers.slice(i, i + 5).map(race));

    const losers = outcomes.flat().filter((outcome) => outcome.status !== 200);
    for (const pair of outcomes) expect(pair.filter((o) => o.status === 200)).toHaveLength(1);
    for (const loser of losers) {
      expect([
        { status: 409, code: "payment_in_progress" },
        { status: 402, code: "payment_already_used" },
      ]).toContainEqual(loser);
    }
    expect(upstream.hits.get("/paid")).toBe(RACES);
    expect(stack.facilitator.calls.settle - settlesBefore).toBe(RACES);
    expect(await chain.transfersToPayee()).toEqual({ count: RACES, total: PRICE * BigInt(RACES) });
    figures.races = {
      payments: RACES,
      requests: RACES * 2,
      paid2xx: RACES,
      transfers: RACES,
      upstreamHits: RACES,
      losers: {
        payment_in_progress: losers.filter((l) => l.code === "payment_in_progress").length,
        payment_already_used: losers.filter((l) => l.code === "payment_already_used").length,
      },
    };
  }, 180_000);

  it("a sign-in proof answered at the other instance works once across both", async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const signer = privateKeyToAccount(stack.accounts.payer.privateKey);
    const header = await signInHeader(signer, a.url, "/member", "http://gateway.test");
    const first = await fetch(`${b.url}/member`, { headers: { "sign-in-with-x": header } });
    expect(first.status).toBe(200);
    const replays = await Promise.all(
      [a, b].map((gateway) => fetch(`${gateway.url}/member`, { headers: { "sign-in-with-x": header } })),
    );
    for (const replay of replays) {
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({
        error: "sign_in_rejected",
        details: { reason: "nonce_unknown_or_used" },
      });
    }
    expect(upstream.hits.get("/member")).toBe(1);
    figures.signIn = { proofs: 1, accepted: 1, replaysRefused: replays.length };
  }, 60_000);
});
