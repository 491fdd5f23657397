import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";
import {
  expectedStrkReward,
  expectedWbtcReward,
  FAUCET_STRK,
  felt,
  ONE_STRK,
  ONE_WBTC,
  STRK,
  WBTC,
} from "./support/stakingFixtures.js";

const ALICE = "0xa11ce";
const BOB = "0xb0b";
const EPOCH = 60;

let running: RunningBackend;
beforeEach(async () => {
  running = await startStakingBackend();
});
afterEach(async () => {
  await running.close();
});

function post(path: string, body: unknown) {
  return request(running.url)
    .post(path)
    .send(body as object);
}

async function position(user: string, token = STRK) {
  const res = await request(running.url).get(`/api/metrics/${user}`).query({ tokenAddress: token });
  expect(res.status).toBe(200);
  return res.body.data.positions[0] as Record<string, unknown> | undefined;
}

async function wallet(user: string, token = STRK): Promise<bigint> {
  const res = await request(running.url).get(`/api/metrics/${user}`);
  const entry = (res.body.data.wallet as Array<{ token: { address: string }; balance: string }>).find(
    (w) => w.token.address === felt(token),
  );
  return BigInt(entry!.balance);
}

describe("staking backend, local adapter: the full story", () => {
  it("stake → epochs pass → claim → restake → intent → early action refused → window passes → action pays back", async () => {
    const stake = 1_000n * ONE_STRK;
    const staked = await post("/api/stake", { userAddress: ALICE, amount: stake.toString() });
    expect(staked.status).toBe(200);
    const data = staked.body.data;
    expect(data.operation).toBe("stake");
    expect(data.userAddress).toBe(felt(ALICE));
    expect(data.token).toEqual({ address: felt(STRK), symbol: "STRK", decimals: 18 });
    expect(data.amount).toBe(stake.toString());
    const pool = data.validator.poolAddress as string;
    expect(data.calls).toEqual([
      { contractAddress: felt(STRK), entrypoint: "approve", calldata: [pool, stake.toString(), "0"] },
      {
        contractAddress: pool,
        entrypoint: "enter_delegation_pool",
        calldata: [felt(ALICE), stake.toString()],
      },
    ]);
    expect(data.position).toMatchObject({ stakedAmount: stake.toString(), unclaimedRewards: "0" });
    expect(data.position.walletBalance).toBe((FAUCET_STRK - stake).toString());

    // Balance changes count two epochs later: after 2 epochs nothing yet, after 10 epochs 8 epochs' worth.
    running.clock.advanceSeconds(2 * EPOCH);
    expect((await position(ALICE))!.unclaimedRewards).toBe("0");
    running.clock.advanceSeconds(8 * EPOCH);
    const earned = expectedStrkReward(stake, 8);
    expect(earned).toBeGreaterThan(0n);
    expect((await position(ALICE))!.unclaimedRewards).toBe(earned.toString());

    const claimed = await post("/api/claim", { userAddress: ALICE });
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.amount).toBe(earned.toString());
    expect(claimed.body.data.recipient).toBe(felt(ALICE));
    expect(claimed.body.data.calls).toEqual([
      { contractAddress: pool, entrypoint: "claim_rewards", calldata: [felt(ALICE)] },
    ]);
    expect(claimed.body.data.position.unclaimedRewards).toBe("0");
    expect(await wallet(ALICE)).toBe(FAUCET_STRK - stake + earned);

    running.clock.advanceSeconds(5 * EPOCH);
    const more = expectedStrkReward(stake, 5);
    const restaked = await post("/api/restake", { userAddress: ALICE });
    expect(restaked.status).toBe(200);
    expect(restaked.body.data.amount).toBe(more.toString());
    expect(restaked.body.data.calls.map((c: { entrypoint: string }) => c.entrypoint)).toEqual([
      "claim_rewards",
      "approve",
      "add_to_delegation_pool",
    ]);
    expect(restaked.body.data.calls[2].calldata).toEqual([felt(ALICE), more.toString()]);
    expect(restaked.body.data.position.stakedAmount).toBe((stake + more).toString());
    expect(await wallet(ALICE)).toBe(FAUCET_STRK - stake + earned);

    const exit = 400n * ONE_STRK;
    const intent = await post("/api/unstake/intent", { userAddress: ALICE, amount: exit.toString() });
    expect(intent.status).toBe(200);
    expect(intent.body.data.calls).toEqual([
      { contractAddress: pool, entrypoint: "exit_delegation_pool_intent", calldata: [exit.toString()] },
    ]);
    expect(intent.body.data.estimatedUnpoolTime).toBe(new Date(running.clock.nowMs + 300_000).toISOString());
    expect(intent.body.data.position).toMatchObject({
      stakedAmount: (stake + more - exit).toString(),
      unpoolAmount: exit.toString(),
      canWithdrawNow: false,
    });

    const early = await post("/api/unstake/action", { userAddress: ALICE });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ success: false, error: { code: "INTENT_WINDOW_NOT_FINISHED" } });
    expect(early.body.error.details.secondsRemaining).toBe(300);

    // A new intent replaces the pending one and restarts the clock.
    running.clock.advanceSeconds(100);
    const replaced = await post("/api/unstake/intent", {
      userAddress: ALICE,
      amount: (500n * ONE_STRK).toString(),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.replacedAmount).toBe(exit.toString());
    expect(replaced.body.data.position.unpoolAmount).toBe((500n * ONE_STRK).toString());
    const stillEarly = await post("/api/unstake/action", { userAddress: ALICE });
    expect(stillEarly.body.error.details.secondsRemaining).toBe(300);

    running.clock.advanceSeconds(300);
    expect((await position(ALICE))!.canWithdrawNow).toBe(true);
    const walletBefore = await wallet(ALICE);
    const action = await post("/api/unstake/action", { userAddress: ALICE });
    expect(action.status).toBe(200);
    expect(action.body.data.amount).toBe((500n * ONE_STRK).toString());
    expect(action.body.data.calls).toEqual([
      { contractAddress: pool, entrypoint: "exit_delegation_pool_action", calldata: [felt(ALICE)] },
    ]);
    expect(action.body.data.position).toMatchObject({ unpoolAmount: "0", unpoolTime: null });
    expect(await wallet(ALICE)).toBe(walletBefore + 500n * ONE_STRK);

    const again = await post("/api/unstake/action", { userAddress: ALICE });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("MISSING_UNSTAKE_INTENT");
  });

  it("a WBTC position earns STRK, claims to the reward address and restakes into the STRK pool by entering it", async () => {
    const amount = ONE_WBTC / 2n;
    const staked = await post("/api/stake", {
      userAddress: BOB,
      amount: amount.toString(),
      tokenAddress: WBTC,
      rewardAddress: ALICE,
    });
    expect(staked.status).toBe(200);
    expect(staked.body.data.token).toEqual({ address: felt(WBTC), symbol: "WBTC", decimals: 8 });
    expect(staked.body.data.position.walletBalance).toBe((ONE_WBTC - amount).toString());

    running.clock.advanceSeconds(12 * EPOCH);
    const earned = expectedWbtcReward(amount, 10);
    expect((await position(BOB, WBTC))!.unclaimedRewards).toBe(earned.toString());
    const claimed = await post("/api/claim", { userAddress: BOB, tokenAddress: WBTC });
    expect(claimed.body.data.amount).toBe(earned.toString());
    expect(claimed.body.data.recipient).toBe(felt(ALICE));
    expect(claimed.body.data.rewardToken.symbol).toBe("STRK");
    expect(await wallet(ALICE)).toBe(FAUCET_STRK + earned);

    running.clock.advanceSeconds(3 * EPOCH);
    const next = expectedWbtcReward(amount, 3);
    const restaked = await post("/api/restake", { userAddress: BOB, tokenAddress: WBTC });
    expect(restaked.status).toBe(200);
    expect(restaked.body.data.enteredStrkPool).toBe(true);
    const [claim, approve, enter] = restaked.body.data.calls;
    expect(claim).toMatchObject({ entrypoint: "claim_rewards", calldata: [felt(BOB)] });
    expect(approve).toMatchObject({ contractAddress: felt(STRK), entrypoint: "approve" });
    expect(approve.calldata.slice(1)).toEqual([next.toString(), "0"]);
    expect(enter).toMatchObject({
      entrypoint: "enter_delegation_pool",
      calldata: [felt(ALICE), next.toString()],
    });
    expect(restaked.body.data.position).toMatchObject({
      stakedAmount: next.toString(),
      rewardAddress: felt(ALICE),
    });

    const metrics = await request(running.url).get(`/api/metrics/${BOB}`);
    expect(
      metrics.body.data.positions.map((p: { token: { symbol: string } }) => p.token.symbol).sort(),
    ).toEqual(["STRK", "WBTC"]);
  });

  it("exit of the whole stake removes the member and pays its rewards to the reward address", async () => {
    await post("/api/stake", { userAddress: ALICE, amount: (100n * ONE_STRK).toString() });
    running.clock.advanceSeconds(4 * EPOCH);
    await post("/api/unstake/intent", { userAddress: ALICE, amount: (100n * ONE_STRK).toString() });
    running.clock.advanceSeconds(300);
    const action = await post("/api/unstake/action", { userAddress: ALICE });
    expect(action.status).toBe(200);
    expect(action.body.data.memberRemoved).toBe(true);
    // Rewards: 2 epochs before the intent, plus the epochs of the window still on the old balance (2 epochs delay).
    const rewards = BigInt(action.body.data.rewardsPaid);
    expect(rewards).toBe(expectedStrkReward(100n * ONE_STRK, 2) + expectedStrkReward(100n * ONE_STRK, 2));
    expect(action.body.data.position.isMember).toBe(false);
    expect(await wallet(ALICE)).toBe(FAUCET_STRK + rewards);
    expect(await position(ALICE)).toBeUndefined();
    const again = await post("/api/stake", { userAddress: ALICE, amount: "1" });
    expect(again.status).toBe(200);
  });

  it("an intent of 0 cancels the pending one", async () => {
    await post("/api/stake", { userAddress: ALICE, amount: "1000" });
    await post("/api/unstake/intent", { userAddress: ALICE, amount: "400" });
    const cancel = await post("/api/unstake/intent", { userAddress: ALICE, amount: "0" });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ cancelled: true, estimatedUnpoolTime: null });
    expect(cancel.body.data.position).toMatchObject({
      stakedAmount: "1000",
      unpoolAmount: "0",
      unpoolTime: null,
    });
    const action = await post("/api/unstake/action", { userAddress: ALICE });
    expect(action.body.error.code).toBe("MISSING_UNSTAKE_INTENT");
  });

  it("add-to-pool by the member's reward address: the caller pays, the member's stake grows; others are refused", async () => {
    await post("/api/stake", { userAddress: ALICE, amount: "1000", rewardAddress: BOB });
    const added = await post("/api/add-to-pool", { userAddress: BOB, amount: "250", poolMember: ALICE });
    expect(added.status).toBe(200);
    expect(added.body.data.poolMember).toBe(felt(ALICE));
    expect(added.body.data.calls[1]).toMatchObject({
      entrypoint: "add_to_delegation_pool",
      calldata: [felt(ALICE), "250"],
    });
    expect(added.body.data.position.stakedAmount).toBe("1250");
    expect(await wallet(BOB)).toBe(FAUCET_STRK - 250n);
    expect(await wallet(ALICE)).toBe(FAUCET_STRK - 1000n);
    const stranger = await post("/api/add-to-pool", {
      userAddress: "0xc0ffee",
      amount: "1",
      poolMember: ALICE,
    });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error).toMatchObject({
      code: "CALLER_CANNOT_ADD_TO_POOL",
      details: { caller: felt("0xc0ffee"), poolMember: felt(ALICE) },
    });
    expect((await position(ALICE))!.stakedAmount).toBe("1250");
  });

  it("serializes concurrent operations on one member: 25 parallel adds all count", async () => {
    await post("/api/stake", { userAddress: ALICE, amount: "1" });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => post("/api/add-to-pool", { userAddress: ALICE, amount: "2" })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await position(ALICE))!.stakedAmount).toBe("51");
    expect(await wallet(ALICE)).toBe(FAUCET_STRK - 51n);
    const validator = await request(running.url).get("/api/metrics/validator");
    const strkPool = validator.body.data.pools.find(
      (p: { token: { symbol: string } }) => p.token.symbol === "STRK",
    );
    expect(strkPool.totalDelegated).toBe("51");
  });

  it("addresses are compared as numbers: padded and unpadded spellings are the same member", async () => {
    await post("/api/stake", { userAddress: "0x00000A11CE", amount: "10" });
    const dup = await post("/api/stake", { userAddress: felt(ALICE), amount: "10" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("POOL_MEMBER_EXISTS");
  });
});
