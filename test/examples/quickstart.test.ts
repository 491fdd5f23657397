import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, usdcRequirements } from "../support/payments.js";

let facilitator: FacilitatorDouble;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  process.env.FACILITATOR_URL = facilitator.url;
});

afterAll(async () => {
  delete process.env.FACILITATOR_URL;
  await facilitator.close();
});

describe("the README's quickstart", () => {
  it("is examples/quickstart.ts, word for word", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../../examples/quickstart.ts", import.meta.url), "utf8");
    expect(readme).toContain(example.trim());
  });

  it("runs: 402 with an offer, then 200 once paid", async () => {
    const { default: app } = await import("../../examples/quickstart.js");
    const offer = await request(app).get("/api/apy");
    expect(offer.status).toBe(402);
    const required = decodeBase64Json(offer.headers["payment-required"] as string) as { accepts: unknown[] };
    expect(required.accepts).toEqual([usdcRequirements("1000")]);
    const paid = await request(app)
      .get("/api/apy")
      .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("1000"))));
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({ apy: "5.25" });
  });
});
