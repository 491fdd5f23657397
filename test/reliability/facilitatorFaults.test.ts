import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import type { ProxyMode } from "../../reliability/support/startFacilitatorProxy.js";
import { ask, expectAlive, expectRefused, FaultLog, paid } from "./support/faultLog.js";
import { PRICE, startFaultRig, waitFor, type FaultRig } from "./support/startFaultRig.js";

let rig: FaultRig;
const log = new FaultLog("facilitator");

beforeAll(async () => {
  // Short timeouts keep the hanging cases quick; the promise is the same at the defaults.
  // Unknown settlements are resolved on anvil (rpcUrls), as an operator should configure it.
  rig = await startFaultRig({
    facilitator: { timeoutMs: 1_500, settleTimeoutMs: 4_000 },
    settlementCheckTimeoutMs: 1_500,
  });
}, 120_000);

afterAll(async () => {
  log.write({ gatewayExit: await rig?.stop() });
});

const promised = {
  unavailable: [503, "facilitator_unavailable"] as const,
  error: [502, "facilitator_error"] as const,
  // /settle timed out, answered 5xx or garbage, or was cut: whether money moved is unknown; the chain
  // shows the authorization unused but still valid, so the payment is kept for a retry.
  unknown: [503, "settlement_unknown"] as const,
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
  { endpoint: "settle", fault: "hang", answer: promised.unknown },
  { endpoint: "settle", fault: "http500", answer: promised.unknown },
  { endpoint: "settle", fault: "garbage", answer: promised.unknown },
  { endpoint: "settle", fault: "cut", answer: promised.unknown },
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

      // Nothing settled, so the payment was released (or kept, when unknown): it still buys exactly one response.
      const retry = await ask(`${rig.gateway.url}/paid/after-${endpoint}`, paid(header));
      expect(retry.status).toBe(200);
      expect(retry.paymentResponse).toBe(true);
      expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });
      const replay = await ask(`${rig.gateway.url}/paid/after-${endpoint}`, paid(header));
      expectRefused(replay, 402, "payment_already_used");
    },
    30_000,
  );

  it("settle done, then the connection cut (outcome unknown): the chain shows it settled, the held response is served once", async () => {
    const header = await rig.pay("/paid/unknown");
    const chain = await watchPayee(rig.stack);
    rig.proxy.modes.settle = "forward-then-cut";
    const got = await ask(`${rig.gateway.url}/paid/unknown`, paid(header));
    rig.proxy.modes = {};
    const moved = await chain.transfersToPayee();
    log.add(
      "settle: done, then connection cut (outcome unknown)",
      "200, settled once (authorizationState)",
      got,
      moved.count,
    );
    expect(got.status).toBe(200);
    expect(got.paymentResponse).toBe(true);
    expect(got.body).toContain('"path":"/paid/unknown"');
    expect(moved).toEqual({ count: 1, total: PRICE });
    expectRefused(await ask(`${rig.gateway.url}/paid/unknown`, paid(header)), 402, "payment_already_used");
    expect((await chain.transfersToPayee()).count).toBe(1);
    await expectAlive(rig.gateway);
  }, 30_000);
});
