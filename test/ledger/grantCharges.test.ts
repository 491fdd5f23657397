import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { GrantCharge, PaymentLedger } from "../../src/ledger/PaymentLedger.js";
import { ledgerPairs } from "../support/ledgerPairs.js";

const { kinds, close } = ledgerPairs("x402-test:grants:");
afterAll(close);

const HOUR = () => Date.now() + 3_600_000;
const charge = (amount: bigint, ...grants: Array<[string, bigint]>): GrantCharge => ({
  amount,
  grants: grants.map(([id, cap]) => ({ id, cap, keepUntilMs: HOUR() })),
});

async function reserved(ledger: PaymentLedger, id: string): Promise<string> {
  const outcome = await ledger.reserve(id, { holdMs: 60_000 });
  if (outcome.status !== "reserved") throw new Error(`expected a reservation of ${id}`);
  return outcome.token;
}

describe.each(kinds)("%s ledger: delegation grants' spending", (_kind, make) => {
  it("charges every grant of a chain or none; a release refunds, a spend keeps the charge", async () => {
    const [a, b] = make();
    const root = randomUUID();
    const agent = randomUUID();
    const t1 = await reserved(a, "p1");
    expect(await a.chargeGrants("p1", charge(400n, [root, 1_000n], [agent, 500n]))).toEqual({
      status: "charged",
    });
    await reserved(b, "p2");
    // The agent grant has 100 left: neither grant is charged.
    expect(await b.chargeGrants("p2", charge(200n, [root, 1_000n], [agent, 500n]))).toEqual({
      status: "cap_exceeded",
      grantId: agent,
      spent: 400n,
      cap: 500n,
    });
    expect(await b.chargeGrants("p2", charge(600n, [root, 1_000n]))).toEqual({ status: "charged" });
    expect(await b.chargeGrants("p3", charge(1n, [root, 1_000n]))).toMatchObject({
      status: "cap_exceeded",
      spent: 1_000n,
    });
    await b.release("p1", "not-the-token");
    expect((await b.chargeGrants("p3", charge(1n, [root, 1_000n]))).status).toBe("cap_exceeded");
    await b.release("p1", t1);
    expect(await a.chargeGrants("p3", charge(400n, [root, 1_000n], [agent, 400n]))).toEqual({
      status: "charged",
    });
    const t4 = await reserved(a, "p4");
    expect(await a.chargeGrants("p4", charge(0n, [agent, 400n]))).toEqual({ status: "charged" });
    await a.spend("p4", t4, { keepUntilMs: HOUR() });
    await a.release("p4", t4);
    expect((await b.chargeGrants("p5", charge(1n, [agent, 400n]))).status).toBe("cap_exceeded");
  });

  it("charging the same payment twice charges once", async () => {
    const [a, b] = make();
    const grant = randomUUID();
    expect((await a.chargeGrants("q1", charge(300n, [grant, 500n]))).status).toBe("charged");
    expect((await b.chargeGrants("q1", charge(300n, [grant, 500n]))).status).toBe("charged");
    expect(await b.chargeGrants("q2", charge(201n, [grant, 500n]))).toMatchObject({ spent: 300n });
  });

  it("exact past 64 bits: caps near 2^64, totals beyond", async () => {
    const [a, b] = make();
    const grant = randomUUID();
    const max = 2n ** 64n - 1n;
    expect((await a.chargeGrants("big1", charge(max - 5n, [grant, max]))).status).toBe("charged");
    expect(await b.chargeGrants("big2", charge(6n, [grant, max]))).toEqual({
      status: "cap_exceeded",
      grantId: grant,
      spent: max - 5n,
      cap: max,
    });
    expect((await b.chargeGrants("big3", charge(5n, [grant, max]))).status).toBe("charged");
    expect(await a.chargeGrants("big4", charge(1n, [grant, max]))).toMatchObject({ spent: max });
  });

  it("many concurrent payments against one cap: exactly as many as fit are charged", async () => {
    const [a, b] = make();
    const grant = randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).chargeGrants(`c${i}`, charge(7n, [grant, 70n]))),
    );
    expect(outcomes.filter((outcome) => outcome.status === "charged")).toHaveLength(10);
  });

  it("property: after any charges and releases, a grant's total is the sum of its unreleased charges", async () => {
    const [a, b] = make();
    const steps = fc.array(
      fc.record({ amount: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), release: fc.boolean() }),
      { minLength: 1, maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (payments) => {
        const grant = randomUUID();
        const cap = 2n ** 64n - 1n;
        let kept = 0n;
        for (const [i, payment] of payments.entries()) {
          const id = `${grant}:${i}`;
          const token = await reserved(a, id);
          const outcome = await b.chargeGrants(id, charge(payment.amount, [grant, cap]));
          expect(outcome.status).toBe(kept + payment.amount <= cap ? "charged" : "cap_exceeded");
          if (outcome.status !== "charged") continue;
          if (payment.release) await a.release(id, token);
          else kept += payment.amount;
        }
        const probe = await a.chargeGrants(`${grant}:probe`, charge(cap, [grant, cap]));
        expect(probe.status === "charged" ? 0n : probe.spent).toBe(kept);
      }),
      { numRuns: 25 },
    );
  });
});
