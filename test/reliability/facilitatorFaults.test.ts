import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import type { ProxyMode } from "../../reliability/support/startFacilitatorProxy.js";
import { ask, expectAlive, expectRefused, FaultLog, paid } from "./support/faultLog.js";
import { PRICE, startFaultRig, waitFor, type FaultRig } from "./support/startFaultRig.js";

let rig: FaultRig;
const log = new FaultLog("facilitator");

beforeAll(async () => {
  // Short timeouts keep the hanging cases quick; the promise is the same at the defaults.
  rig = await startFaultRig({ facilitator: { timeoutMs: 1_500, settleTimeoutMs: 4_000 } });
}, 120_000);

afterAll(async () => {
  log.write({ gatewayExit: await rig?.stop() });
});

const promised = {
  unavailable: [503, "facilitator_unavailable"] as const,
  error: [502, "facilitator_error"] as const,
};

/** A fault on one facilitator endpoint, and the answer the catalogue promises for it. */
const cases: Array<{
  endpoint: "verify" | "settle";
  fault: ProxyMode | "killed";
  answer: readonly [number, string];
}> = [
  { endpoint: "verify", fault: "killed", answer: promised.unavailable },
  { endpoint: "verify", fault: "hang", answer: promised.unavailable },
  { endpoint: "verify", fault: "http500", answer: promised.unavailable },
  { endpoint: "verify", fault: "garbage", answer: promised.error },
  { endpoint: "verify", fault: "cut", answer: promised.unavailable },
  { endpoint: "settle", fault: "killed", answer: promised.unavailable },
  { endpoint: "settle", fault: "hang", answer: promised.unavailable },
  { endpoint: "settle", fault: "http500", answer: promised.unavailable },
  { endpoint: "settle", fault: "garbage", answer: promised.error },
  { endpoint: "settle", fault: "cut", answer: promised.unavailable },
];

describe("facilitator faults, against a real gateway process and the official facilitator on anvil", () => {
  it.each(cases)(
    "$endpoint $fault → $answer.0 $answer.1, nothing served or moved; the same payment then pays once",
    async ({ endpoint, fault, answer }) => {
      const path = `/paid/${endpoint}-${typeof fault === "string" ? fault : "delay"}`;
      const header = await rig.pay(path);
      const chain = await watchPayee(rig.stack);
      let got;
      if (fault === "killed" && endpoint === "verify") {
        await rig.proxy.kill();
        got = await ask(`${rig.gateway.url}${path}`, paid(header));
        await rig.proxy.start();
      } else if (fault === "killed") {
        // Killed while the upstream's answer is held: the settlement finds nobody listening.
        const pending = ask(`${rig.gateway.url}${path.replace(/[^/]+$/, "held")}`, paid(header));
        await waitFor(() => rig.upstream.heldCount() === 1);
        await rig.proxy.kill();
        rig.upstream.releaseHeld();
        got = await pending;
        await rig.proxy.start();
      } else {
        rig.proxy.modes[endpoint] = fault;
        got = await ask(`${rig.gateway.url}${path}`, paid(header));
        rig.proxy.modes = {};
      }
      const moved = (await chain.transfersToPayee()).count;
      log.add(`${endpoint}: ${typeof fault === "string" ? fault : "delay"}`, answer.join(" "), got, moved);
      expectRefused(got, answer[0], answer[1]);
      if (answer[0] === 503) expect(Number(got.retryAfter)).toBeGreaterThan(0);
      expect(moved).toBe(0);
      await expectAlive(rig.gateway);

      // Nothing settled, so the payment was released: it still buys exactly one response.
      const retry = await ask(`${rig.gateway.url}/paid/after-${endpoint}`, paid(header));
      expect(retry.status).toBe(200);
      expect(retry.paymentResponse).toBe(true);
      expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });
      const replay = await ask(`${rig.gateway.url}/paid/after-${endpoint}`, paid(header));
      expectRefused(replay, 402, "payment_already_used");
    },
    30_000,
  );

  it("settle answered, then the connection cut (outcome unknown): never a 2xx without the transfer, never charged twice", async () => {
    const header = await rig.pay("/paid/unknown");
    const chain = await watchPayee(rig.stack);
    rig.proxy.modes.settle = "forward-then-cut";
    const got = await ask(`${rig.gateway.url}/paid/unknown`, paid(header));
    rig.proxy.modes = {};
    const afterFirst = await chain.transfersToPayee();
    log.add(
      "settle: done, then connection cut (outcome unknown)",
      "503 facilitator_unavailable / settlement_unknown",
      got,
      afterFirst.count,
    );
    // Holds whatever the gateway answers: a 2xx only with the money moved, the held body never without it.
    if (got.status >= 200 && got.status < 300) expect(afterFirst.count).toBe(1);
    else expect(got.body).not.toContain('"path"');
    // LEAD: after merging `settlement_unknown` (authorizationState on chain), tighten this to the promised
    // answer: the transfer happened (afterFirst.count === 1), so expect the paid 200 with PAYMENT-RESPONSE
    // (or `settlement_unknown` if the chain cannot tell yet). Today it answers 503 facilitator_unavailable.
    expect(got.status === 200 || got.status >= 500).toBe(true);

    const retry = await ask(`${rig.gateway.url}/paid/unknown`, paid(header));
    expect(retry.status === 200 || retry.status === 402).toBe(true);
    const total = await chain.transfersToPayee();
    expect(total.count).toBe(1);
    // No 2xx for this payment unless the transfer happened; and at most one 2xx for it.
    expect([got, retry].filter((a) => a.status === 200).length).toBeLessThanOrEqual(total.count);
    await expectAlive(rig.gateway);
  }, 30_000);
});
