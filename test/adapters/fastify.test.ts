import { Readable } from "node:stream";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Fastify } from "../../src/adapters/fastify.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { probeAtSettle } from "../support/probeAtSettle.js";

/** `x402Fastify` on a Fastify app with its own routes and replies, listening on loopback. */
let facilitator: FacilitatorDouble;
let app: FastifyInstance;
let url: string;
const PRICE = usdcRequirements("1000");
let streamedAtSettle: number[] = [];
let streamed = 0;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  streamedAtSettle = probeAtSettle(facilitator, () => streamed);
  app = Fastify();
  await app.register(x402Fastify, {
    facilitator: { url: facilitator.url },
    payTo: PAY_TO,
    network: "eip155:84532",
    maxHeldResponseBytes: 4096,
    routes: {
      "GET /api/quote": { price: "$0.001" },
      "GET /api/stream": { price: "$0.001" },
      "GET /api/big": { price: "$0.001" },
      "GET /api/fails": { price: "$0.001" },
    },
  });
  app.get("/api/quote", async (_request, reply) => {
    void reply.header("cache-control", "public, max-age=60");
    return { quote: 42 };
  });
  const chunks = (count: number, size: number) =>
    Readable.from(
      (async function* () {
        for (let index = 0; index < count; index++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          streamed++;
          yield Buffer.alloc(size, 0x61);
        }
      })(),
    );
  app.get("/api/stream", (_request, reply) => reply.type("text/plain").send(chunks(8, 100)));
  app.get("/api/big", (_request, reply) => reply.send(chunks(10, 1000)));
  app.get("/api/fails", async (_request, reply) => reply.code(503).send({ error: "down" }));
  app.get("/free", async () => "free");
  url = await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await app?.close();
  await facilitator?.close();
});

const paid = (path: string) =>
  fetch(`${url}${path}`, { headers: { "payment-signature": header(evmPayment(PRICE)) } });

describe("x402Fastify", () => {
  it("unpaid: 402 with the offer, the route not run", async () => {
    const response = await fetch(`${url}/api/quote`);
    expect(response.status).toBe(402);
    expect(response.headers.get("payment-required")).not.toBeNull();
  });

  it("paid: the route's reply, settled once, with the receipt; its public caching made private", async () => {
    const settled = facilitator.count("settle");
    const response = await paid("/api/quote");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ quote: 42 });
    expect(response.headers.get("payment-response")).not.toBeNull();
    expect(response.headers.get("cache-control")).toBe("private");
    expect(facilitator.count("settle") - settled).toBe(1);
  });

  it("a streamed reply is held to its end before /settle", async () => {
    streamedAtSettle.length = 0;
    streamed = 0;
    const response = await paid("/api/stream");
    expect(streamedAtSettle).toEqual([8]);
    expect(response.status).toBe(200);
    expect((await response.text()).length).toBe(800);
  });

  it("a reply over maxHeldResponseBytes: 502 response_too_large, nothing settled", async () => {
    const settled = facilitator.count("settle");
    const response = await paid("/api/big");
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: string }).error).toBe("response_too_large");
    expect(facilitator.count("settle")).toBe(settled);
  });

  it("a 503 reply is passed on and nothing is settled", async () => {
    const settled = facilitator.count("settle");
    const response = await paid("/api/fails");
    expect(response.status).toBe(503);
    expect(response.headers.get("payment-response")).toBeNull();
    expect(facilitator.count("settle")).toBe(settled);
  });

  it("a free route is Fastify's own reply; the instance tells its routes", async () => {
    const response = await fetch(`${url}/free`);
    expect(await response.text()).toBe("free");
    expect(app.x402.routes.map((route) => route.key)).toContain("GET /api/quote");
  });

  it("an invalid option rejects register, naming the key", async () => {
    const broken = Fastify();
    await expect(
      broken.register(x402Fastify, { facilitator: { url: "not a url" }, routes: {} }).ready(),
    ).rejects.toThrow(/facilitator\.url/);
  });
});
