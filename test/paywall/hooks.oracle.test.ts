import express from "express";
import request from "supertest";
import { HTTPFacilitatorClient, x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import { paymentMiddlewareFromHTTPServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402 } from "../../src/adapters/express.js";
import type { PaymentHooks } from "../../src/paywall/flow/PaymentHooks.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, PAYER } from "../support/payments.js";

/**
 * The official `x402HTTPResourceServer` is the oracle of what hook results decide: for the same results and
 * the same facilitator double, ours and the official's must agree on whether the request is served (2xx),
 * refused with 403, whether the handler runs, and how many times `/settle` is asked.
 */

let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});
afterAll(() => facilitator.close());

const NETWORK = "eip155:84532" as const;
const TRANSACTION = `0x${"ab".repeat(32)}`;
const SETTLED = { success: true, transaction: TRANSACTION, network: NETWORK, payer: PAYER };
const VALID = { isValid: true, payer: PAYER };

/** One scenario: the facilitator's answers and what each hook returns (or `throw`). */
interface Scenario {
  verifyValid: boolean;
  settleSuccess: boolean;
  protectedRequest: "none" | "grant" | "abort";
  beforeVerify: "none" | "abort" | "skipValid" | "skipInvalid" | "throw";
  afterVerify: "none" | "abort" | "skipHandler" | "throw";
  beforeSettle: "none" | "abort" | "skip" | "throw";
  settleFailure: "none" | "recover" | "throw";
  afterSettle: "none" | "throw";
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  verifyValid: fc.boolean(),
  settleSuccess: fc.boolean(),
  protectedRequest: fc.constantFrom("none", "none", "grant", "abort"),
  beforeVerify: fc.constantFrom("none", "abort", "skipValid", "skipInvalid", "throw"),
  afterVerify: fc.constantFrom("none", "abort", "skipHandler", "throw"),
  beforeSettle: fc.constantFrom("none", "abort", "skip", "throw"),
  settleFailure: fc.constantFrom("none", "recover", "throw"),
  afterSettle: fc.constantFrom("none", "throw"),
});

const fail = (): never => {
  throw new Error("hook failure");
};

/** A valid payment, a facilitator that settles, and no hook deciding anything. */
const PLAIN_SCENARIO: Scenario = {
  verifyValid: true,
  settleSuccess: true,
  protectedRequest: "none",
  beforeVerify: "none",
  afterVerify: "none",
  beforeSettle: "none",
  settleFailure: "none",
  afterSettle: "none",
};

/** The scenario's hooks, in the official result shapes (ours takes the same objects). */
function hooksOf(s: Scenario) {
  return {
    onProtectedRequest: async () =>
      s.protectedRequest === "grant"
        ? { grantAccess: true as const }
        : s.protectedRequest === "abort"
          ? { abort: true as const, reason: "denied" }
          : undefined,
    onBeforeVerify: async () => {
      if (s.beforeVerify === "throw") fail();
      if (s.beforeVerify === "abort") return { abort: true as const, reason: "blocked" };
      if (s.beforeVerify === "skipValid") return { skip: true as const, result: VALID };
      if (s.beforeVerify === "skipInvalid")
        return { skip: true as const, result: { isValid: false, invalidReason: "hook_said_no" } };
      return undefined;
    },
    onAfterVerify: async () => {
      if (s.afterVerify === "throw") fail();
      if (s.afterVerify === "abort") return { abort: true as const, reason: "after" };
      if (s.afterVerify === "skipHandler")
        return { skipHandler: true as const, response: { body: { skipped: true } } };
      return undefined;
    },
    onBeforeSettle: async () => {
      if (s.beforeSettle === "throw") fail();
      if (s.beforeSettle === "abort") return { abort: true as const, reason: "paused" };
      if (s.beforeSettle === "skip") return { skip: true as const, result: SETTLED };
      return undefined;
    },
    onSettleFailure: async () => {
      if (s.settleFailure === "throw") fail();
      if (s.settleFailure === "recover") return { recovered: true as const, result: SETTLED };
      return undefined;
    },
    onAfterSettle: async () => {
      if (s.afterSettle === "throw") fail();
    },
  };
}

const ROUTES = {
  "GET /r": { accepts: { scheme: "exact", price: "$0.001", network: NETWORK, payTo: PAY_TO } },
};

/** What both must agree on. */
interface Decision {
  served: boolean;
  denied: boolean;
  handlerRan: boolean;
  settles: number;
}

async function decide(app: express.Express, handled: { count: number }, paid: boolean): Promise<Decision> {
  let signature: string | undefined;
  if (paid) {
    const offer = await request(app).get("/r");
    if (offer.status !== 402) {
      // Decided before any offer (onProtectedRequest): the same request without payment is the whole story.
      signature = undefined;
    } else {
      const required = decodeBase64Json(offer.headers["payment-required"] as string) as {
        accepts: Parameters<typeof evmPayment>[0][];
        resource: unknown;
      };
      signature = header({ ...evmPayment(required.accepts[0]!), resource: required.resource });
    }
  }
  const settles = facilitator.count("settle");
  const ran = handled.count;
  const req = request(app).get("/r");
  const response = await (signature === undefined ? req : req.set("PAYMENT-SIGNATURE", signature));
  return {
    served: response.status >= 200 && response.status < 300,
    denied: response.status === 403,
    handlerRan: handled.count > ran,
    settles: facilitator.count("settle") - settles,
  };
}

function officialApp(s: Scenario, handled: { count: number }): express.Express {
  const hooks = hooksOf(s);
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url }))
    .register(NETWORK, new ExactEvmScheme())
    .onBeforeVerify(hooks.onBeforeVerify)
    .onAfterVerify(hooks.onAfterVerify)
    .onBeforeSettle(hooks.onBeforeSettle)
    .onSettleFailure(hooks.onSettleFailure)
    .onAfterSettle(hooks.onAfterSettle);
  const http = new x402HTTPResourceServer(server, ROUTES).onProtectedRequest(hooks.onProtectedRequest);
  const app = express();
  app.use(paymentMiddlewareFromHTTPServer(http));
  app.get("/r", (_req, res) => {
    handled.count++;
    res.json({ ok: true });
  });
  return app;
}

function ourApp(s: Scenario, handled: { count: number }): express.Express {
  const app = express();
  app.use(x402({ facilitator: { url: facilitator.url }, routes: ROUTES, hooks: hooksOf(s) as PaymentHooks }));
  app.get("/r", (_req, res) => {
    handled.count++;
    res.json({ ok: true });
  });
  return app;
}

describe("hook results decide as the official x402HTTPResourceServer decides", () => {
  it("for any hook results and facilitator answers: the same served/403/handler/settle decisions", async () => {
    // The official warns on console for each hook that throws; the noise says nothing here.
    const warn = console.warn;
    console.warn = () => {};
    const seen = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          facilitator.mode = "normal";
          facilitator.verify = () =>
            s.verifyValid ? VALID : { isValid: false, invalidReason: "insufficient_funds", payer: PAYER };
          facilitator.settle = () =>
            s.settleSuccess
              ? SETTLED
              : {
                  success: false,
                  errorReason: "transaction_failed",
                  transaction: "",
                  network: NETWORK,
                  payer: PAYER,
                };
          const officialHandled = { count: 0 };
          const official = await decide(officialApp(s, officialHandled), officialHandled, true);
          const ourHandled = { count: 0 };
          const ours = await decide(ourApp(s, ourHandled), ourHandled, true);
          expect(ours).toEqual(official);
          seen.add(JSON.stringify(official));
        }),
        {
          numRuns: 150,
          // One of each kind of decision is always among the runs (the rest are random).
          examples: (
            [
              {},
              { beforeSettle: "skip" },
              { protectedRequest: "abort" },
              { beforeSettle: "abort" },
              { afterVerify: "skipHandler" },
            ] as Array<Partial<Scenario>>
          ).map((change) => [{ ...PLAIN_SCENARIO, ...change }]),
        },
      );
    } finally {
      console.warn = warn;
    }
    // The runs reached every kind of decision: served and settled, served unpaid (granted), 403, refused
    // after the handler ran (settle aborted or failed), and answered without the handler (skipHandler).
    const decisions = [...seen].map((text) => JSON.parse(text) as Decision);
    expect(decisions).toContainEqual({ served: true, denied: false, handlerRan: true, settles: 1 });
    expect(decisions).toContainEqual({ served: true, denied: false, handlerRan: true, settles: 0 });
    expect(decisions).toContainEqual({ served: false, denied: true, handlerRan: false, settles: 0 });
    expect(decisions).toContainEqual({ served: false, denied: false, handlerRan: true, settles: 0 });
    expect(decisions).toContainEqual({ served: true, denied: false, handlerRan: false, settles: 1 });
  }, 120_000);
});
