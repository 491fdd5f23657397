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

/**
 * The runnable example of each adapter's docs page is an example file, word for word, and it runs: 402
 * with an offer, then 200 once paid. The Next.js one is called as Next calls a route handler (`GET(request)`;
 * `next` itself is not installed here).
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const PRICE = usdcRequirements("1000");

async function expectPaysOnce(send: (headers: Record<string, string>) => Promise<Response>, body: unknown) {
  const offer = await send({});
  expect(offer.status).toBe(402);
  const required = decodeBase64Json(offer.headers.get("payment-required") ?? "") as { accepts: unknown[] };
  expect(required.accepts).toEqual([PRICE]);
  const settled = facilitator.count("settle");
  const paid = await send({ "payment-signature": header(evmPayment(PRICE)) });
  expect(paid.status).toBe(200);
  expect(await paid.json()).toEqual(body);
  expect(paid.headers.get("payment-response")).not.toBeNull();
  expect(facilitator.count("settle") - settled).toBe(1);
}

describe.each([
  ["docs/fetch.md", "examples/fetch.ts"],
  ["docs/hono.md", "examples/hono.ts"],
  ["docs/nextjs.md", "examples/next/app/api/quote/route.ts"],
  ["docs/fastify.md", "examples/fastify.ts"],
])("%s", (page, example) => {
  it(`shows ${example} word for word`, () => {
    expect(read(page)).toContain(read(example).trim());
  });
});

describe("the adapter examples run", () => {
  it("examples/fetch.ts: export default { fetch }", async () => {
    const { default: worker } = await import("../../examples/fetch.js");
    await expectPaysOnce(
      (headers) => worker.fetch(new Request("https://api.example.com/api/apy", { headers })),
      { apy: "5.25" },
    );
  });

  it("examples/hono.ts: through app.request()", async () => {
    const { default: app } = await import("../../examples/hono.js");
    await expectPaysOnce(async (headers) => app.request("https://api.example.com/api/apy", { headers }), {
      apy: "5.25",
    });
  });

  it("examples/next/app/api/quote/route.ts: GET(request), as Next.js calls it", async () => {
    const { GET } = await import("../../examples/next/app/api/quote/route.js");
    await expectPaysOnce((headers) => GET(new Request("https://api.example.com/api/quote", { headers })), {
      quote: 42,
    });
  });

  it("examples/fastify.ts: listening on loopback", async () => {
    const { default: app } = await import("../../examples/fastify.js");
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      await expectPaysOnce((headers) => fetch(`${url}/api/apy`, { headers }), { apy: "5.25" });
    } finally {
      await app.close();
    }
  });
});
