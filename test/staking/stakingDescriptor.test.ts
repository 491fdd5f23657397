import { Ajv2020 } from "ajv/dist/2020.js";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStakingBackend } from "../../src/staking/index.js";
import { stakingRoutes } from "../../src/staking/stakingRoutes.js";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";

let running: RunningBackend;
beforeAll(async () => {
  running = await startStakingBackend({ config: { publicUrl: "https://staking.example.com" } });
});
afterAll(async () => {
  await running.close();
});

describe("descriptor, health, ping, OpenAPI", () => {
  it("serves the descriptor at / and /api with the 11 endpoints", async () => {
    for (const path of ["/", "/api"]) {
      const res = await request(running.url).get(path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, version: "1.0.0" });
      expect(res.body.documentation).toBe("https://staking.example.com/openapi.json");
      expect(res.body.endpoints).toEqual({
        health: "GET /health",
        ping: "GET /ping",
        stake: "POST /api/stake",
        addToPool: "POST /api/add-to-pool",
        unstakeIntent: "POST /api/unstake/intent",
        unstakeAction: "POST /api/unstake/action",
        claim: "POST /api/claim",
        restake: "POST /api/restake",
        userMetrics: "GET /api/metrics/:userAddress",
        validatorMetrics: "GET /api/metrics/validator",
        apy: "GET /api/apy",
      });
    }
  });

  it("answers /health and /ping", async () => {
    expect((await request(running.url).get("/health")).body).toMatchObject({ success: true, status: "ok" });
    expect((await request(running.url).get("/ping")).body).toMatchObject({ success: true, message: "pong" });
  });

  it("validator metrics and APR (an APR, said so)", async () => {
    const validator = await request(running.url).get("/api/metrics/validator");
    expect(validator.body.data).toMatchObject({
      adapter: "local",
      commissionBps: 500,
      currentEpoch: 0,
      epochLengthSeconds: 60,
      exitWaitWindowSeconds: 300,
      exiting: false,
    });
    expect(validator.body.data.pools.map((p: { token: { symbol: string } }) => p.token.symbol)).toEqual([
      "STRK",
      "WBTC",
    ]);
    const apy = await request(running.url).get("/api/apy");
    // Y = 120M, S = 1B, alpha 25 %, c 5 %: 120/1000 · 0.75 · 0.95 = 8.55 %; BTC: 120M · 0.25 · 0.15 / (1500 · 100000) · 0.95 = 2.85 %.
    // Restaked once per 60 s epoch, n = 525,600 a year: (1 + 0.0855/n)^n − 1 = 8.926155…%,
    // (1 + 0.0285/n)^n − 1 = 2.891001…% (computed by hand with 60-digit decimals).
    expect(apy.body.data).toMatchObject({
      kind: "APY",
      compounding: { restaked: "once per epoch", periodsPerYear: 525_600, epochLengthSeconds: 60 },
      strk: { apyPercent: "8.9261", aprPercent: "8.5500" },
      btc: { apyPercent: "2.8910", aprPercent: "2.8500" },
    });
    expect(apy.body.data.note).toMatch(/\(1 \+ APR\/n\)\^n − 1/);
    const wbtc = await request(running.url).get(
      "/api/apy?tokenAddress=0x3fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac",
    );
    expect(wbtc.body.data.token).toMatchObject({
      symbol: "WBTC",
      apyPercent: "2.8910",
      aprPercent: "2.8500",
    });
  });

  it("names its documentation with an absolute URL from the request's host when no publicUrl is set", async () => {
    const bare = await startStakingBackend();
    try {
      const res = await request(bare.url).get("/api");
      expect(res.body.documentation).toBe(`${bare.url}/openapi.json`);
    } finally {
      await bare.close();
    }
  });

  it("serves an OpenAPI 3.1 document of every route, built from the request schemas", async () => {
    const res = await request(running.url).get("/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: "https://staking.example.com" }]);
    for (const route of stakingRoutes) {
      const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
      expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
    expect(doc.paths["/"].get).toBeDefined();
    const stake = doc.paths["/api/stake"].post;
    const schema = stake.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["userAddress", "amount"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(stake.responses).sort()).toEqual(["200", "400", "404", "409", "503"]);
    const userMetrics = doc.paths["/api/metrics/{userAddress}"].get;
    expect(userMetrics.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "path:userAddress",
      "query:tokenAddress",
    ]);

    // The JSON Schema agrees with the validator on what it can express.
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    expect(validate({ userAddress: "0x1", amount: "5" })).toBe(true);
    expect(validate({ userAddress: "0x1", amount: "-5" })).toBe(false);
    expect(validate({ userAddress: "1", amount: "5" })).toBe(false);
    expect(validate({ userAddress: "0x1", amount: "5", extra: 1 })).toBe(false);
  });

  it("refuses a bad config naming the key", () => {
    expect(() => createStakingBackend({ config: { local: { epochLengthSeconds: 0 } } })).toThrow(
      /invalid staking backend config: local\.epochLengthSeconds/,
    );
    expect(() => createStakingBackend({ config: { adapter: "starknet" } })).toThrow(/starknet/);
  });
});
