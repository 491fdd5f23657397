import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { ask, expectAlive, FaultLog, paid } from "./support/faultLog.js";
import { PRICE, startFaultRig, type FaultRig } from "./support/startFaultRig.js";

let rig: FaultRig;
const log = new FaultLog("upstream");

beforeAll(async () => {
  // A short upstream timeout keeps the hanging case quick; the promise is the same at the default 60 s.
  rig = await startFaultRig({ upstreamTimeoutMs: 1_500 });
}, 120_000);

afterAll(async () => {
  log.write({ gatewayExit: await rig?.stop() });
});

/** An upstream fault on a paid request, and what the client is promised (status 0: the connection is cut). */
const cases = [
  { fault: "reset", status: 502, code: "upstream_unavailable", promised: "502 upstream_unavailable" },
  { fault: "hang", status: 504, code: "upstream_timeout", promised: "504 upstream_timeout" },
  { fault: "500", status: 500, code: undefined, promised: "the upstream's 500, unsettled" },
  { fault: "cut", status: 0, code: "connection_closed", promised: "connection cut, unsettled" },
];

describe("upstream faults on paid requests, through a real gateway process", () => {
  it.each(cases)(
    "$fault → $promised; no transfer; the payment still buys one response",
    async ({ fault, status, code, promised }) => {
      const header = await rig.pay(`/paid/${fault}`);
      const chain = await watchPayee(rig.stack);
      const settles = rig.proxy.received.settle;
      const got = await ask(`${rig.gateway.url}/paid/${fault}`, paid(header));
      const moved = (await chain.transfersToPayee()).count;
      log.add(`upstream ${fault}`, promised, got, moved);
      expect({ status: got.status, code: got.code }).toEqual({ status, code });
      expect(got.paymentResponse).toBe(false);
      expect(rig.proxy.received.settle).toBe(settles);
      expect(moved).toBe(0);
      await expectAlive(rig.gateway);

      const retry = await ask(`${rig.gateway.url}/paid/after-${fault}`, paid(header));
      expect(retry.status).toBe(200);
      expect(await chain.transfersToPayee()).toEqual({ count: 1, total: PRICE });
    },
    30_000,
  );
});
