import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { oneGrantDelegation } from "../support/oneGrantDelegation.js";
import { fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";
import { startUpstream, type SeenRequest, type TestUpstream } from "../gateway/support/startUpstream.js";

const MERCHANT = "merchant:grant-cap";
const PRICE = 1_000n;
/** Each intent its own second: the same agent answering the same offer twice must not sign the same intent. */
let tick = 0;
const time = () => Math.floor(Date.now() / 1000) + tick++;

interface Instance {
  gateway: RunningGateway;
  upstream: TestUpstream & { release(): void };
  hits(path: string): number;
}

/** A gateway with its own memory ledger (no Redis) in front of its own upstream, settling at `facilitatorUrl`. */
async function startInstance(facilitatorUrl: string): Promise<Instance> {
  const upstream = await startUpstream();
  const config = gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    // The JSON facilitator is never called: every route here is CBOR only.
    facilitator: { url: "http://127.0.0.1:9" },
    payTo: "0x0000000000000000000000000000000000000001",
    network: "eip155:84532",
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitatorUrl } },
    routes: {
      "GET /paid": { cbor: { currency: "USDC", amount: PRICE.toString() } },
      "GET /release": { cbor: { currency: "USDC", amount: PRICE.toString() } },
    },
    upstreams: [{ url: upstream.url }],
    logging: { level: "silent" },
  });
  const gateway = await createGateway(config).listen();
  return {
    gateway,
    upstream,
    hits: (path) => upstream.seen.filter((seen) => seen.url.split("?")[0] === path).length,
  };
}

let facilitator: RunningCborFacilitator;
let instances: [Instance, Instance];

beforeAll(async () => {
  facilitator = await startCborFacilitator();
  instances = [await startInstance(facilitator.url), await startInstance(facilitator.url)];
});
afterAll(async () => {
  for (const instance of instances ?? []) {
    await instance.gateway.close();
    await instance.upstream.stop();
  }
  await facilitator?.stop();
});

/** A fresh root with an account, an agent without one, and a grant root → agent capped at `cap`. */
const delegation = (cap: bigint) =>
  oneGrantDelegation(facilitator.book, {
    cap,
    balance: 1_000_000n,
    scope: { kind: "merchant", merchant: MERCHANT },
  });

/** What moved since `before`: the root's debit, settle calls, settlements and upstream hits on `path` per instance. */
function movedSince(grant: ReturnType<typeof delegation>, path: string) {
  const read = () => ({
    settles: facilitator.calls.settle,
    settled: facilitator.book.settlements(),
    hits: instances.map((instance) => instance.hits(path)),
  });
  const before = read();
  return () => {
    const after = read();
    return {
      debited: 1_000_000n - grant.rootBalance()!,
      settles: after.settles - before.settles,
      settled: after.settled - before.settled,
      hits: after.hits.map((hits, i) => hits - before.hits[i]!),
    };
  };
}

/** Pay `path` at `instance` as `agent` through `chain`: status and error code. */
async function pay(instance: Instance, path: string, agent: ReturnType<typeof delegation>) {
  const url = `${instance.gateway.url}${path}`;
  const { offer } = await fetchCborOffer(url);
  const response = await postCborPayment(
    url,
    signedIntent(offer, agent.agent, {}, { time: time(), delegationChain: agent.chain }),
  );
  await response.arrayBuffer();
  return { status: response.status, code: response.headers.get("x402-error") };
}

describe("a delegation grant's cap is held by the facilitator, across gateways with separate ledgers", () => {
  it("a grant capped at one price, paid at each gateway in turn: one 200; the second is refused at verify, never served", async () => {
    const [a, b] = instances;
    const grant = delegation(PRICE);
    const moved = movedSince(grant, "/paid");

    expect(await pay(a, "/paid", grant)).toEqual({ status: 200, code: null });
    // Gateway b's own ledger has never seen this grant: the facilitator's books refuse it.
    expect(await pay(b, "/paid", grant)).toEqual({ status: 402, code: "verification_failed" });

    expect(moved()).toEqual({ debited: PRICE, settles: 1, settled: 1, hits: [1, 0] });
  });

  it("both verified before either settles: one 200; the other's settle is refused delegation_cap_exceeded and nothing more is debited", async () => {
    const [a, b] = instances;
    const grant = delegation(PRICE);
    const moved = movedSince(grant, "/release");
    const heldAt = (instance: Instance): Promise<SeenRequest> => instance.upstream.nextRequest();

    // Both requests reach their upstream (so both passed verify) before either is answered.
    const [reachedA, reachedB] = [heldAt(a), heldAt(b)];
    const paidA = pay(a, "/release", grant);
    const paidB = pay(b, "/release", grant);
    await Promise.all([reachedA, reachedB]);
    a.upstream.release();
    expect(await paidA).toEqual({ status: 200, code: null });
    b.upstream.release();
    // What the gateway answers a settle the facilitator refuses (the held response is not delivered).
    expect(await paidB).toEqual({ status: 402, code: "settlement_failed" });

    // Two settle calls, one settlement; the loser's upstream ran (settle after the handler), its response withheld.
    expect(moved()).toEqual({ debited: PRICE, settles: 2, settled: 1, hits: [1, 1] });
  });

  it("a cap of 3 prices, 10 concurrent distinct intents split over both gateways: exactly 3 served and debited", async () => {
    const [a, b] = instances;
    const grant = delegation(3n * PRICE);
    const moved = movedSince(grant, "/paid");
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => pay(i % 2 === 0 ? a : b, "/paid", grant)),
    );
    const served = outcomes.filter((outcome) => outcome.status === 200);
    const refusedAtSettle = outcomes.filter((outcome) => outcome.code === "settlement_failed");
    expect(served).toHaveLength(3);
    for (const refused of outcomes.filter((outcome) => outcome.status !== 200)) {
      expect([
        { status: 402, code: "verification_failed" },
        { status: 402, code: "settlement_failed" },
        // A gateway's own ledger refuses first once it has counted the cap itself.
        { status: 402, code: "delegation_cap_exceeded" },
      ]).toContainEqual(refused);
    }
    const { debited, settled, settles, hits } = moved();
    expect({ debited, settled }).toEqual({ debited: 3n * PRICE, settled: 3 });
    // A settle call for each 200 and each refusal at settle; upstream ran for exactly those.
    expect(settles).toBe(3 + refusedAtSettle.length);
    expect(hits[0]! + hits[1]!).toBe(3 + refusedAtSettle.length);
  });
});
