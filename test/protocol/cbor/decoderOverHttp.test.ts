import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../../src/dev/startCborFacilitator.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../../../src/protocol/cbor/profile.js";
import { worstCaseHeaders } from "../../../bench/cborWorstCase.js";
import { postCborPayment } from "../../support/cborClient.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../../support/cborTargets.js";

// The bench's hostile headers sent for real: each is a 400 naming its rule, and nothing else happens.
const attacks = worstCaseHeaders().filter((c) => c.expected !== "accepted");
let facilitator: RunningCborFacilitator;

beforeAll(async () => {
  facilitator = await startCborFacilitator({ accounts: [] });
}, 60_000);
afterAll(async () => {
  await facilitator?.stop();
});

describe.each(CBOR_TARGET_KINDS)("hostile CBOR payments up to the header cap, through %s", (kind) => {
  let target: CborTarget;

  beforeAll(async () => {
    target = await startCborTarget(
      kind,
      {
        // Never called: the routes offer only CBOR.
        facilitator: { url: "http://127.0.0.1:9" },
        cbor: { merchantPseudonym: "merchant:decoder-test", facilitator: { url: facilitator.url } },
        payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        network: "eip155:31337",
        routes: { "GET /quote": { cbor: { currency: "USDC", amount: "1000" } } },
      },
      Date.now,
    );
  }, 60_000);
  afterAll(async () => {
    await target?.stop();
  });

  it.each(attacks.map((c) => [c.name, c] as const))(
    "%s → refused, naming the rule; nothing served, the facilitator never asked",
    async (_name, c) => {
      expect(c.header.length).toBeLessThanOrEqual(MAX_CBOR_PAYMENT_HEADER_CHARS);
      const calls = { ...facilitator.calls };
      const response = await postCborPayment(`${target.url}/quote`, c.header);
      // The gateway's default head limit leaves room for the largest payment header: the paywall answers.
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; details: Record<string, unknown> };
      expect(body.error).toBe("invalid_payment");
      const problem = c.expected.replace("refused: ", "");
      expect(body.details).toMatchObject({ header: "PAYMENT-SIGNATURE", problem });
      expect(target.served("/quote")).toBe(0);
      expect(facilitator.calls).toEqual(calls);
    },
  );
});
