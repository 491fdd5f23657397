import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";
import { FAUCET_STRK, felt, ONE_STRK, WBTC } from "./support/stakingFixtures.js";

let running: RunningBackend;
let exiting: RunningBackend;
beforeAll(async () => {
  running = await startStakingBackend();
  exiting = await startStakingBackend({ config: { local: { exiting: true } } });
  await request(running.url).post("/api/stake").send({ userAddress: "0x1", amount: "1000" });
});
afterAll(async () => {
  await running.close();
  await exiting.close();
});

async function expectError(
  res: request.Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code } });
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.details).toBeTypeOf("object");
  return res.body.error.details;
}

const post = (path: string, body: object) => request(running.url).post(path).send(body);

describe("staking backend errors (the docs/staking-backend.md catalogue)", () => {
  it("POOL_MEMBER_EXISTS (409): stake twice", async () => {
    await expectError(
      await post("/api/stake", { userAddress: "0x1", amount: "5" }),
      409,
      "POOL_MEMBER_EXISTS",
    );
  });

  it("AMOUNT_IS_ZERO (400): stake or add 0", async () => {
    await expectError(await post("/api/stake", { userAddress: "0x2", amount: "0" }), 400, "AMOUNT_IS_ZERO");
    await expectError(
      await post("/api/add-to-pool", { userAddress: "0x1", amount: "0" }),
      400,
      "AMOUNT_IS_ZERO",
    );
  });

  it("VALIDATOR_EXITING (409): no stake, add or restake while the validator leaves; intent, claim and exit still work", async () => {
    const res = await request(exiting.url).post("/api/stake").send({ userAddress: "0x2", amount: "5" });
    const details = await expectError(res, 409, "VALIDATOR_EXITING");
    expect(details.stakerAddress).toMatch(/^0x[0-9a-f]{64}$/);

    // A member from before the validator started leaving: same data file, restarted with exiting: true.
    const dir = mkdtempSync(join(tmpdir(), "staking-exiting-"));
    const dataFile = join(dir, "state.sqlite");
    try {
      const before = await startStakingBackend({ config: { local: { dataFile } } });
      await request(before.url)
        .post("/api/stake")
        .send({ userAddress: "0x2", amount: (100n * ONE_STRK).toString() });
      await before.close();
      const after = await startStakingBackend({ config: { local: { dataFile, exiting: true } } });
      after.clock.advanceSeconds(600);
      try {
        const add = await request(after.url)
          .post("/api/add-to-pool")
          .send({ userAddress: "0x2", amount: "5" });
        await expectError(add, 409, "VALIDATOR_EXITING");
        const restake = await request(after.url).post("/api/restake").send({ userAddress: "0x2" });
        await expectError(restake, 409, "VALIDATOR_EXITING");
        expect((await request(after.url).post("/api/claim").send({ userAddress: "0x2" })).status).toBe(200);
        const intent = await request(after.url)
          .post("/api/unstake/intent")
          .send({ userAddress: "0x2", amount: "5" });
        expect(intent.status).toBe(200);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("UNKNOWN_TOKEN (404): a token without a pool, in operations, metrics and apy", async () => {
    const details = await expectError(
      await post("/api/stake", { userAddress: "0x2", amount: "5", tokenAddress: "0x999" }),
      404,
      "UNKNOWN_TOKEN",
    );
    expect(details.tokenAddress).toBe(felt("0x999"));
    await expectError(
      await request(running.url).get("/api/metrics/0x1").query({ tokenAddress: "0x999" }),
      404,
      "UNKNOWN_TOKEN",
    );
    await expectError(await request(running.url).get("/api/apy?tokenAddress=0x999"), 404, "UNKNOWN_TOKEN");
  });

  it("INSUFFICIENT_BALANCE (409): more than the wallet holds, nothing debited", async () => {
    const details = await expectError(
      await post("/api/stake", { userAddress: "0x3", amount: (FAUCET_STRK + 1n).toString() }),
      409,
      "INSUFFICIENT_BALANCE",
    );
    expect(details).toMatchObject({
      balance: FAUCET_STRK.toString(),
      required: (FAUCET_STRK + 1n).toString(),
    });
    await expectError(
      await post("/api/stake", { userAddress: "0x3", amount: "100000001", tokenAddress: WBTC }),
      409,
      "INSUFFICIENT_BALANCE",
    );
  });

  it("POOL_MEMBER_NOT_FOUND (404): add, intent, action, claim, restake of a non-member", async () => {
    const bodies: Array<[string, object]> = [
      ["/api/add-to-pool", { userAddress: "0x4", amount: "5" }],
      ["/api/add-to-pool", { userAddress: "0x1", amount: "5", poolMember: "0x4" }],
      ["/api/unstake/intent", { userAddress: "0x4", amount: "5" }],
      ["/api/unstake/action", { userAddress: "0x4" }],
      ["/api/claim", { userAddress: "0x4" }],
      ["/api/restake", { userAddress: "0x4" }],
    ];
    for (const [path, body] of bodies) {
      const details = await expectError(await post(path, body), 404, "POOL_MEMBER_NOT_FOUND");
      expect(details.poolMember).toBe(felt("0x4"));
    }
  });

  it("AMOUNT_TOO_HIGH (400): intent above staked + pending", async () => {
    const details = await expectError(
      await post("/api/unstake/intent", { userAddress: "0x1", amount: "1001" }),
      400,
      "AMOUNT_TOO_HIGH",
    );
    expect(details).toMatchObject({ field: "amount", maximum: "1000" });
  });

  it("MISSING_UNSTAKE_INTENT (409) and INTENT_WINDOW_NOT_FINISHED (409) with secondsRemaining", async () => {
    await expectError(
      await post("/api/unstake/action", { userAddress: "0x1" }),
      409,
      "MISSING_UNSTAKE_INTENT",
    );
    await post("/api/unstake/intent", { userAddress: "0x1", amount: "10" });
    running.clock.advanceSeconds(299);
    const details = await expectError(
      await post("/api/unstake/action", { userAddress: "0x1" }),
      409,
      "INTENT_WINDOW_NOT_FINISHED",
    );
    expect(details.secondsRemaining).toBe(1);
    await post("/api/unstake/intent", { userAddress: "0x1", amount: "0" });
  });

  it("NOTHING_TO_RESTAKE (409): no rewards yet", async () => {
    await post("/api/stake", { userAddress: "0x5", amount: (10n * ONE_STRK).toString() });
    await expectError(await post("/api/restake", { userAddress: "0x5" }), 409, "NOTHING_TO_RESTAKE");
  });

  it("NOT_FOUND (404) for an unknown route, in the same error shape", async () => {
    await expectError(await request(running.url).get("/api/nope"), 404, "NOT_FOUND");
  });
});
