import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import { paymentSigner, type PaymentSigner } from "../../reliability/support/signPayments.js";
import { spawnGateway } from "../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import { ask, expectAlive, expectRefused, FaultLog, paid } from "./support/faultLog.js";
import { PRICE, REDIS_URL, waitFor } from "./support/startFaultRig.js";

/** Responses in flight when the signal arrives. */
const IN_FLIGHT = 4;
/** Short reservations, so a payment whose gateway died becomes usable again within the test (long enough to see it blocked first on a loaded machine). */
const RESERVATION_TTL_MS = 12_000;

let stack: LocalStack;
let upstream: CountingUpstream;
let signer: PaymentSigner;
const log = new FaultLog("signals");

beforeAll(async () => {
  [stack, upstream] = await Promise.all([startLocalStack(), startCountingUpstream()]);
  signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  await stack?.stop();
  log.write();
});

/** A config with its own Redis key prefix: instances share a ledger only when they share the config. */
const config = () => ({
  ...localGatewayConfig({
    stack,
    upstreamUrl: upstream.url,
    redis: { url: REDIS_URL, keyPrefix: `test:reliability:${randomUUID()}:` },
    routes: { "GET /paid/*": { price: "$0.001" } },
    drainTimeoutMs: 20_000,
    logLevel: "info",
  }),
  reservationTtlMs: RESERVATION_TTL_MS,
});

describe("signals while paid responses are held", () => {
  it(`SIGTERM with ${IN_FLIGHT} responses held: every one is settled and delivered, then exit 0`, async () => {
    const gateway = await spawnGateway(config());
    const headers = await signer.sign(`${gateway.url}/paid/held`, IN_FLIGHT);
    const chain = await watchPayee(stack);
    const pending = headers.map((header) => ask(`${gateway.url}/paid/held`, paid(header)));
    await waitFor(() => upstream.heldCount() === IN_FLIGHT);
    gateway.child.kill("SIGTERM");
    await waitFor(() => gateway.output().stdout.includes('"msg":"draining"'));
    upstream.releaseHeld();
    const answers = await Promise.all(pending);
    for (const answer of answers) log.add("SIGTERM while held", "200, settled before exit", answer, 1);
    expect(answers.map((a) => [a.status, a.paymentResponse])).toEqual(headers.map(() => [200, true]));
    expect(await chain.transfersToPayee()).toEqual({ count: IN_FLIGHT, total: PRICE * BigInt(IN_FLIGHT) });
    expect(await gateway.exited).toBe(0);
  }, 90_000);

  it("SIGKILL of one of two instances mid-flight: the other keeps serving, no payment is used twice", async () => {
    const shared = config();
    const [doomed, survivor] = await Promise.all([spawnGateway(shared), spawnGateway(shared)]);
    const headers = await signer.sign(`${doomed.url}/paid/held`, IN_FLIGHT + 1);
    const chain = await watchPayee(stack);
    const inFlight = headers.slice(0, IN_FLIGHT);
    const pending = inFlight.map((header) => ask(`${doomed.url}/paid/held`, paid(header)));
    await waitFor(() => upstream.heldCount() === IN_FLIGHT);
    await doomed.stop("SIGKILL");
    const cut = await Promise.all(pending);
    upstream.releaseHeld();
    for (const answer of cut)
      log.add("SIGKILL of one instance (held)", "connection cut, unsettled", answer, 0);
    expect(cut.map((a) => a.status)).toEqual(inFlight.map(() => 0));
    expect((await chain.transfersToPayee()).count).toBe(0);

    // The dead instance's reservations block its payments (409) until they expire; the survivor serves
    // fresh payments meanwhile, and then each blocked payment pays exactly once.
    expectRefused(await ask(`${survivor.url}/paid/retry`, paid(inFlight[0]!)), 409, "payment_in_progress");
    const fresh = await ask(`${survivor.url}/paid/fresh`, paid(headers[IN_FLIGHT]!));
    expect(fresh.status).toBe(200);
    // Each reservation expires on its own (they were taken moments apart): retry each until it does.
    const retryUntilFree = async (header: string) => {
      let answer = await ask(`${survivor.url}/paid/retry`, paid(header));
      await waitFor(async () => {
        if (answer.status === 409) answer = await ask(`${survivor.url}/paid/retry`, paid(header));
        return answer.status !== 409;
      }, RESERVATION_TTL_MS + 10_000);
      return answer;
    };
    const retried = await Promise.all(inFlight.map(retryUntilFree));
    for (const answer of retried)
      log.add("retry at the survivor after the reservation expired", "200", answer, 1);
    expect(retried.map((a) => a.status)).toEqual(inFlight.map(() => 200));
    for (const header of headers) {
      expectRefused(await ask(`${survivor.url}/paid/again`, paid(header)), 402, "payment_already_used");
    }
    expect(await chain.transfersToPayee()).toEqual({
      count: IN_FLIGHT + 1,
      total: PRICE * BigInt(IN_FLIGHT + 1),
    });
    await expectAlive(survivor);
    expect(await survivor.stop()).toBe(0);
  }, 90_000);
});
