import express from "express";
import request from "supertest";
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { paymentMiddleware } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402 } from "../../src/adapters/express.js";
import { HttpFacilitator } from "../../src/facilitator/HttpFacilitator.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { MAX_ANSWER_EXTENSIONS_BYTES } from "../../src/protocol/schemas.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, PAYER, usdcRequirements } from "../support/payments.js";

let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});
afterAll(() => facilitator.close());

function official() {
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register(
    "eip155:84532",
    new ExactEvmScheme(),
  );
  const app = express();
  app.use(
    paymentMiddleware(
      { "GET /r": { accepts: { scheme: "exact", price: "$0.001", network: "eip155:84532", payTo: PAY_TO } } },
      server,
    ),
  );
  app.get("/r", (_req, res) => void res.json({ ok: true }));
  return app;
}

function ours() {
  const app = express();
  app.use(
    x402({
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: { "GET /r": { price: "$0.001" } },
    }),
  );
  app.get("/r", (_req, res) => void res.json({ ok: true }));
  return app;
}

async function paidResponse(app: express.Express): Promise<Record<string, unknown>> {
  const offer = await request(app).get("/r");
  const required = decodeBase64Json(offer.headers["payment-required"] as string) as {
    accepts: Parameters<typeof evmPayment>[0][];
    resource: unknown;
  };
  const payment = { ...evmPayment(required.accepts[0]!), resource: required.resource };
  const paid = await request(app).get("/r").set("PAYMENT-SIGNATURE", header(payment));
  expect(paid.status).toBe(200);
  // Read as any client reads it (plain base64 JSON): decodeBase64Json, the paywall's reader of hostile input,
  // drops keys named like prototypes and would hide what the wire carries (a seed once drew `constructor`).
  const receipt = Buffer.from(paid.headers["payment-response"] as string, "base64").toString("utf8");
  return JSON.parse(receipt) as Record<string, unknown>;
}

const TRANSACTION = `0x${"ab".repeat(32)}`;

const SETTLED = { success: true, transaction: TRANSACTION, network: "eip155:84532", payer: PAYER };

/** The facilitator double settles with these fields beside the verdict. */
function settlesWith(fields: Record<string, unknown>): void {
  facilitator.settle = () => ({ ...SETTLED, ...fields });
}

const jsonValue = fc.jsonValue({ maxDepth: 2 });
const answerFields = fc.record(
  {
    amount: fc.bigInt({ min: 0n, max: 2n ** 96n }).map(String),
    extensions: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), jsonValue, { maxKeys: 3 }),
    extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), jsonValue, { maxKeys: 3 }),
    extensionResponses: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), jsonValue, { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

describe("the facilitator's answer fields", () => {
  it("PAYMENT-RESPONSE carries amount, extensions and extra as the official @x402/express passes them (property)", async () => {
    const theirs = official();
    const mine = ours();
    let withFields = 0;
    await fc.assert(
      fc.asyncProperty(answerFields, async (fields) => {
        fc.pre(
          JSON.stringify([fields.extensions ?? null, fields.extra ?? null]).length <=
            MAX_ANSWER_EXTENSIONS_BYTES,
        );
        settlesWith(fields);
        const expected = await paidResponse(theirs);
        const actual = await paidResponse(mine);
        expect(actual).toEqual(expected);
        if (fields.extensions !== undefined) {
          // as JSON carries them (a -0 arrives as 0)
          expect(actual.extensions).toEqual(JSON.parse(JSON.stringify(fields.extensions)));
          withFields++;
        }
      }),
      { numRuns: 30 },
    );
    expect(withFields).toBeGreaterThan(5);
  }, 120_000);

  it("an extensions key named constructor (a counterexample CI found: answered 503) is passed on as the official does", async () => {
    settlesWith({ extensions: { constructor: {} } });
    expect(await paidResponse(ours())).toEqual(await paidResponse(official()));
  });

  it("a facilitator's oversized extensions are dropped: the paid response stays readable and is delivered", async () => {
    settlesWith({ amount: "1000", extensions: { big: "x".repeat(MAX_ANSWER_EXTENSIONS_BYTES) } });
    const receipt = await paidResponse(ours());
    expect(receipt).toEqual({ ...SETTLED, amount: "1000" });
  });

  it.each([["-1"], ["1e3"], [" 1000"], [1000], ["0x3e8"]])(
    "an amount that is not a decimal integer string (%j) is left out, the settlement still counts",
    async (amount) => {
      settlesWith({ amount });
      const receipt = await paidResponse(ours());
      expect(receipt).toEqual(SETTLED);
    },
  );

  it("/verify's extensions and extra are kept in the answer the paywall reads", async () => {
    facilitator.verify = () => ({
      isValid: true,
      payer: PAYER,
      extensions: { siwx: { info: { ok: true } } },
      extra: { a: 1 },
    });
    const answer = await new HttpFacilitator({ url: facilitator.url }).verify(
      evmPayment(usdcRequirements("1000")),
      usdcRequirements("1000"),
    );
    expect(answer).toEqual({
      isValid: true,
      payer: PAYER,
      extensions: { siwx: { info: { ok: true } } },
      extra: { a: 1 },
    });
  });
});
