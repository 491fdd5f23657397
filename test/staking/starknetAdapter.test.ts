import request from "supertest";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { ContractViewTable, entrypointNames } from "./support/contractViewTable.js";
import { felt, ONE_STRK, STRK, WBTC } from "./support/stakingFixtures.js";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";

const STAKING = "0x5a";
const CURVE = "0x6b";
const STAKER = "0x7c";
const STRK_POOL = "0x8d";
const WBTC_POOL = "0x9e";
const USER = "0xa11ce";
const REWARD = "0xbeef";
const EXIT_WINDOW = 7 * 86_400;
const VIEWS = [
  "staker_pool_info",
  "get_staker_info_v1",
  "get_current_epoch",
  "contract_parameters_v1",
  "get_pool_member_info_v1",
  "balance_of",
  "yearly_mint",
  "get_current_total_staking_power",
];

interface Member {
  reward?: string;
  amount?: bigint;
  unclaimed?: bigint;
  unpoolAmount?: bigint;
  unpoolTime?: number | null;
}

/** `Option<PoolMemberInfoV1>::Some` serialized. */
function memberFelts(m: Member): Array<string | bigint | number> {
  const time = m.unpoolTime ?? null;
  return [
    0,
    m.reward ?? USER,
    m.amount ?? 0n,
    m.unclaimed ?? 0n,
    500,
    m.unpoolAmount ?? 0n,
    ...(time === null ? [1] : [0, time]),
  ];
}

let server: StarknetRpcServer;
let running: RunningBackend;
let table: ContractViewTable;
let now: number;

function baseTable(): ContractViewTable {
  return new ContractViewTable()
    .set(
      STAKING,
      "staker_pool_info",
      [STAKER],
      [0, 500, 2, STRK_POOL, STRK, 10n ** 24n, WBTC_POOL, WBTC, 5n * 10n ** 8n],
    )
    .set(STAKING, "get_staker_info_v1", [STAKER], [0, "0x1111", "0x2222", 1, 2_000_000n * ONE_STRK, 7, 1])
    .set(STAKING, "get_current_epoch", [], [4321])
    .set(STAKING, "contract_parameters_v1", [], [ONE_STRK, STRK, "0x3333", "0x4444", "0x5555", EXIT_WINDOW])
    .set(STRK_POOL, "contract_parameters_v1", [], [STAKER, 0, STAKING, STRK, 500])
    .set(WBTC_POOL, "contract_parameters_v1", [], [STAKER, 0, STAKING, WBTC, 500])
    .set(CURVE, "yearly_mint", [], [120_000_000n * ONE_STRK, 0])
    .set(STAKING, "get_current_total_staking_power", [], [1_000_000_000n * ONE_STRK, 1_500n * ONE_STRK])
    .set(STRK_POOL, "get_pool_member_info_v1", [USER], [1])
    .set(WBTC_POOL, "get_pool_member_info_v1", [USER], [1])
    .set(STRK, "balance_of", [USER], [10_000n * ONE_STRK, 0])
    .set(WBTC, "balance_of", [USER], [10n ** 8n, 0]);
}

beforeAll(async () => {
  server = await startStarknetRpcServer({ call: (call) => table.handler(call) });
  running = await startStakingBackend({
    config: {
      adapter: "starknet",
      starknet: {
        rpcUrl: server.url,
        stakingContract: STAKING,
        mintingCurveContract: CURVE,
        stakerAddress: STAKER,
        timeoutMs: 3_000,
      },
    },
  });
  now = Math.floor(running.clock.nowMs / 1000);
});
afterAll(async () => {
  await running.close();
  await server.close();
});
beforeEach(() => {
  table = baseTable();
  server.setMode("normal");
  server.requests.length = 0;
  server.calls().length = 0;
  server.validationFailures.length = 0;
});
afterEach(() => {
  expect(server.validationFailures).toEqual([]);
});

const post = (path: string, body: object) => request(running.url).post(path).send(body);

describe("Starknet adapter: unsigned calls after checking chain state", () => {
  it("stake: approve(pool, u256 [low, high]) + enter_delegation_pool(reward, amount); reads the contracts over v0_10", async () => {
    const amount = 2n ** 100n + 7n;
    table.set(STRK, "balance_of", [USER], [0, 1]); // 2^128: a u256 with a high part
    const res = await post("/api/stake", {
      userAddress: USER,
      amount: amount.toString(),
      rewardAddress: REWARD,
    });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.validator).toEqual({ stakerAddress: felt(STAKER), poolAddress: felt(STRK_POOL) });
    expect(data.calls).toEqual([
      {
        contractAddress: felt(STRK),
        entrypoint: "approve",
        calldata: [felt(STRK_POOL), amount.toString(), "0"],
      },
      {
        contractAddress: felt(STRK_POOL),
        entrypoint: "enter_delegation_pool",
        calldata: [felt(REWARD), amount.toString()],
      },
    ]);
    expect(data.position).toBeUndefined();
    expect(data.operationId).toBeUndefined();
    expect(server.requests.every((r) => r.path === "/rpc/v0_10" && r.method === "starknet_call")).toBe(true);
    expect(new Set(entrypointNames(server.calls(), VIEWS))).toEqual(
      new Set([
        "staker_pool_info",
        "get_staker_info_v1",
        "get_current_epoch",
        "contract_parameters_v1",
        "get_pool_member_info_v1",
        "balance_of",
      ]),
    );
    const memberCall = server
      .calls()
      .find((c) => entrypointNames([c], VIEWS)[0] === "get_pool_member_info_v1")!;
    expect(BigInt(memberCall.contractAddress)).toBe(BigInt(STRK_POOL));
    expect(memberCall.calldata.map(BigInt)).toEqual([BigInt(USER)]);
    expect(memberCall.blockId).toBe("latest");
  });

  it("addToPool: approve + add_to_delegation_pool(pool_member, amount) into the WBTC pool", async () => {
    table.set(WBTC_POOL, "get_pool_member_info_v1", ["0xf00"], memberFelts({ reward: USER, amount: 10n }));
    const res = await post("/api/add-to-pool", {
      userAddress: USER,
      amount: "2500",
      tokenAddress: WBTC,
      poolMember: "0xf00",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.calls).toEqual([
      { contractAddress: felt(WBTC), entrypoint: "approve", calldata: [felt(WBTC_POOL), "2500", "0"] },
      {
        contractAddress: felt(WBTC_POOL),
        entrypoint: "add_to_delegation_pool",
        calldata: [felt("0xf00"), "2500"],
      },
    ]);
  });

  it("unstakeIntent: exit_delegation_pool_intent(amount), unpool time from the contract's exit window", async () => {
    table.set(
      STRK_POOL,
      "get_pool_member_info_v1",
      [USER],
      memberFelts({ amount: 100n, unpoolAmount: 20n, unpoolTime: now + 5 }),
    );
    const res = await post("/api/unstake/intent", { userAddress: USER, amount: "120" });
    expect(res.status).toBe(200);
    expect(res.body.data.calls).toEqual([
      { contractAddress: felt(STRK_POOL), entrypoint: "exit_delegation_pool_intent", calldata: ["120"] },
    ]);
    expect(res.body.data.estimatedUnpoolTime).toBe(new Date((now + EXIT_WINDOW) * 1000).toISOString());
    const tooHigh = await post("/api/unstake/intent", { userAddress: USER, amount: "121" });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.error.code).toBe("AMOUNT_TOO_HIGH");
  });

  it("unstakeAction: exit_delegation_pool_action(pool_member) once unpool_time has passed; refused before", async () => {
    table.set(
      STRK_POOL,
      "get_pool_member_info_v1",
      [USER],
      memberFelts({ amount: 1n, unpoolAmount: 30n, unpoolTime: now - 1 }),
    );
    const res = await post("/api/unstake/action", { userAddress: USER });
    expect(res.status).toBe(200);
    expect(res.body.data.amount).toBe("30");
    expect(res.body.data.calls).toEqual([
      { contractAddress: felt(STRK_POOL), entrypoint: "exit_delegation_pool_action", calldata: [felt(USER)] },
    ]);
    table.set(
      STRK_POOL,
      "get_pool_member_info_v1",
      [USER],
      memberFelts({ amount: 1n, unpoolAmount: 30n, unpoolTime: now + 90 }),
    );
    const early = await post("/api/unstake/action", { userAddress: USER });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: "INTENT_WINDOW_NOT_FINISHED",
      details: { secondsRemaining: 90 },
    });
    table.set(STRK_POOL, "get_pool_member_info_v1", [USER], memberFelts({ amount: 1n }));
    expect((await post("/api/unstake/action", { userAddress: USER })).body.error.code).toBe(
      "MISSING_UNSTAKE_INTENT",
    );
  });

  it("claim: claim_rewards(pool_member), paid to the member's reward address", async () => {
    table.set(
      WBTC_POOL,
      "get_pool_member_info_v1",
      [USER],
      memberFelts({ reward: REWARD, amount: 5n, unclaimed: 777n }),
    );
    const res = await post("/api/claim", { userAddress: USER, tokenAddress: WBTC });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ amount: "777", recipient: felt(REWARD) });
    expect(res.body.data.calls).toEqual([
      { contractAddress: felt(WBTC_POOL), entrypoint: "claim_rewards", calldata: [felt(USER)] },
    ]);
  });

  it("restake: claim_rewards + approve + enter_delegation_pool into the STRK pool when not a member there, add otherwise", async () => {
    table.set(WBTC_POOL, "get_pool_member_info_v1", [USER], memberFelts({ amount: 5n, unclaimed: 900n }));
    const entered = await post("/api/restake", { userAddress: USER, tokenAddress: WBTC });
    expect(entered.status).toBe(200);
    expect(entered.body.data.calls).toEqual([
      { contractAddress: felt(WBTC_POOL), entrypoint: "claim_rewards", calldata: [felt(USER)] },
      { contractAddress: felt(STRK), entrypoint: "approve", calldata: [felt(STRK_POOL), "900", "0"] },
      {
        contractAddress: felt(STRK_POOL),
        entrypoint: "enter_delegation_pool",
        calldata: [felt(USER), "900"],
      },
    ]);
    table.set(STRK_POOL, "get_pool_member_info_v1", [USER], memberFelts({ amount: 50n, unclaimed: 40n }));
    const added = await post("/api/restake", { userAddress: USER });
    expect(added.body.data.calls[2]).toEqual({
      contractAddress: felt(STRK_POOL),
      entrypoint: "add_to_delegation_pool",
      calldata: [felt(USER), "40"],
    });
    table.set(STRK_POOL, "get_pool_member_info_v1", [USER], memberFelts({ amount: 50n, unclaimed: 0n }));
    expect((await post("/api/restake", { userAddress: USER })).body.error.code).toBe("NOTHING_TO_RESTAKE");
  });

  it("checks the same preconditions against chain state", async () => {
    table.set(WBTC_POOL, "get_pool_member_info_v1", ["0xf00"], memberFelts({ reward: "0xf00", amount: 10n }));
    const notAllowed = await post("/api/add-to-pool", {
      userAddress: USER,
      amount: "1",
      tokenAddress: WBTC,
      poolMember: "0xf00",
    });
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body.error.code).toBe("CALLER_CANNOT_ADD_TO_POOL");
    table.set(STRK_POOL, "get_pool_member_info_v1", [USER], memberFelts({ amount: 5n }));
    expect((await post("/api/stake", { userAddress: USER, amount: "1" })).body.error.code).toBe(
      "POOL_MEMBER_EXISTS",
    );
    expect((await post("/api/claim", { userAddress: USER, tokenAddress: WBTC })).body.error.code).toBe(
      "POOL_MEMBER_NOT_FOUND",
    );
    const poor = await post("/api/stake", {
      userAddress: USER,
      amount: (10n ** 8n + 1n).toString(),
      tokenAddress: WBTC,
    });
    expect(poor.status).toBe(409);
    expect(poor.body.error).toMatchObject({
      code: "INSUFFICIENT_BALANCE",
      details: { balance: "100000000" },
    });
    expect(
      (await post("/api/stake", { userAddress: USER, amount: "0", tokenAddress: WBTC })).body.error.code,
    ).toBe("AMOUNT_IS_ZERO");

    // A token the config knows but the validator has no pool for.
    table.set(STAKING, "staker_pool_info", [STAKER], [0, 500, 1, STRK_POOL, STRK, 0]);
    const unknown = await post("/api/stake", { userAddress: USER, amount: "1", tokenAddress: WBTC });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("UNKNOWN_TOKEN");

    // The validator declared its exit (unstake_time is Some).
    table = baseTable().set(
      STAKING,
      "get_staker_info_v1",
      [STAKER],
      [0, "0x1111", "0x2222", 0, now + 100, 5, 0, 1],
    );
    const exiting = await post("/api/stake", { userAddress: USER, amount: "1" });
    expect(exiting.status).toBe(409);
    expect(exiting.body.error.code).toBe("VALIDATOR_EXITING");
    // The pool says its staker was removed.
    table = baseTable().set(STRK_POOL, "contract_parameters_v1", [], [STAKER, 1, STAKING, STRK, 500]);
    expect((await post("/api/stake", { userAddress: USER, amount: "1" })).body.error.code).toBe(
      "VALIDATOR_EXITING",
    );
  });

  it("metrics and APR come from the contracts (yearly_mint u256, total staking power)", async () => {
    table.set(
      STRK_POOL,
      "get_pool_member_info_v1",
      [USER],
      memberFelts({ amount: 50n, unclaimed: 3n, unpoolAmount: 4n, unpoolTime: now - 1 }),
    );
    const user = await request(running.url).get(`/api/metrics/${USER}`);
    expect(user.status).toBe(200);
    expect(user.body.data.positions).toEqual([
      expect.objectContaining({
        stakedAmount: "50",
        unclaimedRewards: "3",
        unpoolAmount: "4",
        unpoolTime: new Date((now - 1) * 1000).toISOString(),
        canWithdrawNow: true,
        commissionBps: 500,
        poolAddress: felt(STRK_POOL),
      }),
    ]);
    expect(user.body.data.wallet).toBeUndefined();
    const validator = await request(running.url).get("/api/metrics/validator");
    expect(validator.body.data).toMatchObject({
      adapter: "starknet",
      ownStake: (2_000_000n * ONE_STRK).toString(),
      commissionBps: 500,
      currentEpoch: 4321,
      exitWaitWindowSeconds: EXIT_WINDOW,
      pools: [
        { poolAddress: felt(STRK_POOL), totalDelegated: (10n ** 24n).toString() },
        { poolAddress: felt(WBTC_POOL), totalDelegated: "500000000" },
      ],
    });
    const apr = await request(running.url).get("/api/apy");
    // The epoch length is unknown on Starknet: rewards compound daily, (1 + 0.0855/365)^365 − 1 = 8.925065…%.
    expect(apr.body.data).toMatchObject({
      compounding: { periodsPerYear: 365, epochLengthSeconds: null },
      strk: { apyPercent: "8.9250", aprPercent: "8.5500" },
      btc: { apyPercent: "2.8908", aprPercent: "2.8500" },
    });
    table.set(CURVE, "yearly_mint", [], [5, 1]);
    expect((await request(running.url).get("/api/apy")).body.data.yearlyMint).toBe(
      (2n ** 128n + 5n).toString(),
    );
  });
});

describe("Starknet adapter: node failures", () => {
  it("HTTP 500, a non-JSON answer and a hang are 503 CHAIN_UNAVAILABLE", async () => {
    for (const mode of ["http500", "garbage", "hang"] as const) {
      server.setMode(mode);
      const res = await post("/api/claim", { userAddress: USER });
      expect(res.status, mode).toBe(503);
      expect(res.body.error.code).toBe("CHAIN_UNAVAILABLE");
    }
  });

  it("a node that is gone is 503 CHAIN_UNAVAILABLE", async () => {
    const gone = await startStarknetRpcServer();
    const url = gone.url;
    await gone.close();
    const backend = await startStakingBackend({
      config: {
        adapter: "starknet",
        starknet: {
          rpcUrl: url,
          stakingContract: STAKING,
          mintingCurveContract: CURVE,
          stakerAddress: STAKER,
          timeoutMs: 400,
        },
      },
    });
    try {
      const res = await request(backend.url).get("/api/metrics/validator");
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("CHAIN_UNAVAILABLE");
    } finally {
      await backend.close();
    }
  });

  it("a view that reverts or a malformed result is 502 CHAIN_ERROR, not a 500", async () => {
    table.delete(STAKING, "get_current_epoch", []);
    const missing = await request(running.url).get("/api/metrics/validator");
    expect(missing.status).toBe(502);
    expect(missing.body.error.code).toBe("CHAIN_ERROR");
    table = baseTable().set(STAKING, "get_current_epoch", [], [1, 2]);
    const long = await request(running.url).get("/api/metrics/validator");
    expect(long.status).toBe(502);
    expect(long.body.error.message).toMatch(/get_current_epoch/);
    table = baseTable().set(STRK_POOL, "get_pool_member_info_v1", [USER], [7]);
    expect((await post("/api/claim", { userAddress: USER })).status).toBe(502);
  });
});
