import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cborDevPayer } from "../../src/dev/cborDevPayers.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { writeFigures } from "../../reliability/support/figures.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import { cborRefusal, fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";
import { issueGrant } from "../../src/protocol/cbor/issueGrant.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** CBOR intents raced between the two instances. */
const RACES = 20;
const PRICE = 1_000n;
const MERCHANT = "merchant:reliability";
const payer = cborDevPayer("ed25519");
/** A delegation root with an account, and an agent without one that pays on its behalf. */
const root = createSigningKey("ed25519");
const agent = createSigningKey("ed25519");

let stack: LocalStack;
let upstream: CountingUpstream;
let cbor: RunningCborFacilitator;
let gateways: GatewayProcess[] = [];

beforeAll(async () => {
  [stack, upstream, cbor] = await Promise.all([
    startLocalStack(),
    startCountingUpstream(),
    startCborFacilitator({
      accounts: [
        { publicKey: payer.publicKey, balances: { USDC: 1_000_000n } },
        { publicKey: root.publicKey, balances: { USDC: 1_000_000n } },
      ],
    }),
  ]);
  const config = {
    ...localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      redis: { url: REDIS_URL, keyPrefix: `test:reliability:cbor:${randomUUID()}:` },
      publicUrl: "http://gateway.test",
      routes: { "GET /intent": { cbor: { currency: "USDC", amount: PRICE.toString() } } },
    }),
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: cbor.url } },
  };
  gateways = await Promise.all([spawnGateway(config), spawnGateway(config)]);
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await Promise.all([upstream?.close(), cbor?.stop(), stack?.stop()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("two gateway processes sharing Redis, paid in application/x402+cbor", () => {
  it(`the same intent sent to both at once, ${RACES} times: one 2xx, one settlement, one upstream hit each`, async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const { offer } = await fetchCborOffer(`${a.url}/intent`);
    const start = Math.floor(Date.now() / 1000);
    const settlesBefore = cbor.calls.settle;
    const payerBefore = cbor.payerBalance(payer.publicKey, "USDC")!;
    const merchantBefore = cbor.merchantBalance(MERCHANT, "USDC");
    const outcomes: Array<Array<{ status: number; code: string | null }>> = [];
    const race = async (index: number) => {
      // Each race its own intent (the claim has no nonce: its time tells them apart).
      const header = signedIntent(offer, payer, {}, { time: start - index });
      const both = await Promise.all(
        [a, b].map(async (gateway) => {
          await sleep(Math.random() * 150);
          const response = await postCborPayment(`${gateway.url}/intent`, header);
          const code =
            response.headers.get("x402-error") ??
            (response.ok || response.status === 402 ? null : (await cborRefusal(response)).error);
          return { status: response.status, code };
        }),
      );
      outcomes.push(both);
    };
    for (let i = 0; i < RACES; i += 5) {
      await Promise.all(Array.from({ length: 5 }, (_, k) => race(i + k)));
    }

    for (const pair of outcomes) expect(pair.filter((outcome) => outcome.status === 200)).toHaveLength(1);
    const losers = outcomes.flat().filter((outcome) => outcome.status !== 200);
    for (const loser of losers) {
      expect([
        { status: 409, code: "payment_in_progress" },
        { status: 402, code: "payment_already_used" },
      ]).toContainEqual(loser);
    }
    expect(cbor.calls.settle - settlesBefore).toBe(RACES);
    expect(payerBefore - cbor.payerBalance(payer.publicKey, "USDC")!).toBe(PRICE * BigInt(RACES));
    expect(cbor.merchantBalance(MERCHANT, "USDC") - merchantBefore).toBe(PRICE * BigInt(RACES));
    expect(upstream.hits.get("/intent")).toBe(RACES);
    writeFigures("two-instances-cbor", {
      intents: RACES,
      requests: RACES * 2,
      paid2xx: RACES,
      settlements: RACES,
      upstreamHits: RACES,
    });
  }, 180_000);

  it("a delegation grant capped at 3 prices, 10 concurrent distinct intents split over both: exactly 3 served and settled", async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const { offer } = await fetchCborOffer(`${a.url}/intent`);
    const chain = [
      issueGrant(root, {
        delegate: agent.publicKey,
        scope: { kind: "merchant", merchant: MERCHANT },
        cap: { currency: "USDC", amount: 3n * PRICE },
        validUntil: Math.floor(Date.now() / 1000) + 3600,
      }),
    ];
    const start = Math.floor(Date.now() / 1000);
    const [settlesBefore, rootBefore, hitsBefore] = [
      cbor.calls.settle,
      cbor.payerBalance(root.publicKey, "USDC")!,
      upstream.hits.get("/intent") ?? 0,
    ];
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const header = signedIntent(offer, agent, {}, { time: start - i, delegationChain: chain });
        const response = await postCborPayment(`${(i % 2 ? a : b).url}/intent`, header);
        await response.arrayBuffer();
        return { status: response.status, code: response.headers.get("x402-error") };
      }),
    );
    expect(outcomes.filter((outcome) => outcome.status === 200)).toHaveLength(3);
    for (const refused of outcomes.filter((outcome) => outcome.status !== 200)) {
      expect(refused).toEqual({ status: 402, code: "delegation_cap_exceeded" });
    }
    expect(cbor.calls.settle - settlesBefore).toBe(3);
    expect(rootBefore - cbor.payerBalance(root.publicKey, "USDC")!).toBe(3n * PRICE);
    expect(cbor.payerBalance(agent.publicKey, "USDC")).toBeUndefined();
    expect((upstream.hits.get("/intent") ?? 0) - hitsBefore).toBe(3);
  }, 60_000);
});
