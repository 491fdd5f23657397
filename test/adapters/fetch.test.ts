import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { x402Fetch, type X402FetchHandler } from "../../src/adapters/fetch.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { probeAtSettle } from "../support/probeAtSettle.js";

/**
 * `x402Fetch` called the way Next.js calls a route handler (`export const GET = (request) => …`), Bun's and
 * Deno's `serve` and Workers' `fetch` call theirs: with a `Request`, answering a `Response`. `next` is written
 * with Web streams only. (`next` is not installed here: this is the Fetch adapter as Next calls it.)
 */
let facilitator: FacilitatorDouble;
let paywall: X402FetchHandler;
const ORIGIN = "https://api.example";
const PRICE = usdcRequirements("1000");
/** What the handler's stream had given when `/settle` arrived. */
let streamedAtSettle: number[] = [];
let streamed = 0;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  streamedAtSettle = probeAtSettle(facilitator, () => streamed);
  paywall = x402Fetch({
    facilitator: { url: facilitator.url, timeoutMs: 1_000, settleTimeoutMs: 1_000 },
    payTo: PAY_TO,
    network: "eip155:84532",
    publicUrl: ORIGIN,
    requireTls: false,
    maxHeldResponseBytes: 4096,
    routes: {
      "GET /api/quote": { price: "$0.001", description: "A quote" },
      "GET /api/stream": { price: "$0.001" },
      "GET /api/big": { price: "$0.001" },
      "GET /api/fails": { price: "$0.001" },
      "GET /api/throws": { price: "$0.001" },
      "GET /api/cached": { price: "$0.001" },
      "POST /api/before": { price: "$0.001", settle: "before" },
    },
  });
});

afterAll(async () => {
  await paywall?.close();
  await facilitator?.close();
});

beforeEach(() => {
  streamedAtSettle.length = 0;
  streamed = 0;
});

/** A body of `chunks` chunks of `size` bytes, given one at a time, each after a turn of the event loop. */
function slowStream(chunks: number, size: number): ReadableStream<Uint8Array> {
  let given = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (given === chunks) return controller.close();
      given++;
      streamed++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

/** The app behind the paywall, as a Next.js route module would export it. */
const handlers: Record<string, (request: Request) => Promise<Response>> = {
  "/api/quote": async () => Response.json({ quote: 42 }),
  "/api/stream": async () => new Response(slowStream(8, 100), { headers: { "content-type": "text/plain" } }),
  "/api/big": async () => new Response(slowStream(10, 1000)),
  "/api/fails": async () => Response.json({ error: "down" }, { status: 503 }),
  "/api/throws": async () => {
    throw new Error("the handler broke");
  },
  "/api/cached": async () => Response.json({}, { headers: { "cache-control": "public, max-age=60" } }),
  "/api/before": async (request) => Response.json({ got: await request.text() }),
  "/free": async () => new Response("free", { headers: { "x-app": "1" } }),
};
let calls = 0;
const next = (request: Request): Promise<Response> => {
  calls++;
  const handler = handlers[new URL(request.url).pathname];
  return handler ? handler(request) : Promise.resolve(new Response("not found", { status: 404 }));
};
/** `export async function GET(request: Request) { return paywall(request, next); }` */
const GET = (request: Request) => paywall(request, next);

const paid = (path: string, init: RequestInit = {}) =>
  new Request(`${ORIGIN}${path}`, {
    ...init,
    headers: {
      "payment-signature": header(evmPayment({ ...PRICE, maxTimeoutSeconds: 60 })),
      ...(init.headers as Record<string, string>),
    },
  });

describe("x402Fetch as a route handler calls it", () => {
  it("unpaid: 402 with the offer for the public URL; the handler is not called", async () => {
    const before = calls;
    const response = await GET(new Request(`${ORIGIN}/api/quote?x=1`));
    expect(response.status).toBe(402);
    const offer = decodeBase64Json(response.headers.get("payment-required") ?? "") as {
      resource: { url: string };
      accepts: Array<{ amount: string }>;
    };
    expect(offer.resource.url).toBe(`${ORIGIN}/api/quote?x=1`);
    expect(offer.accepts[0]?.amount).toBe("1000");
    expect(calls).toBe(before);
  });

  it("a free path is the handler's own Response, untouched", async () => {
    const response = await GET(new Request(`${ORIGIN}/free`));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-app")).toBe("1");
    expect(await response.text()).toBe("free");
  });

  it("paid: settled once, then the handler's answer with the receipt and private caching", async () => {
    const settled = facilitator.count("settle");
    const response = await GET(paid("/api/quote"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ quote: 42 });
    expect(response.headers.get("payment-response")).not.toBeNull();
    expect(response.headers.get("cache-control")).toBe("private");
    expect(facilitator.count("settle") - settled).toBe(1);
  });

  it("a streamed body is read to its end before settlement, and nothing of it leaves before", async () => {
    const response = await GET(paid("/api/stream"));
    // The stream had given all 8 chunks when /settle was asked; the Response came after.
    expect(streamedAtSettle).toEqual([8]);
    expect(response.status).toBe(200);
    expect((await response.text()).length).toBe(800);
    expect(response.headers.get("content-type")).toBe("text/plain");
  });

  it("a body over maxHeldResponseBytes: 502 response_too_large, its stream cancelled, nothing settled", async () => {
    const settled = facilitator.count("settle");
    const response = await GET(paid("/api/big"));
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: string }).error).toBe("response_too_large");
    expect(streamed).toBeLessThan(10);
    expect(facilitator.count("settle")).toBe(settled);
  });

  it("a non-2xx answer is passed on as it is and not settled", async () => {
    const settled = facilitator.count("settle");
    const response = await GET(paid("/api/fails"));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "down" });
    expect(response.headers.get("payment-response")).toBeNull();
    expect(facilitator.count("settle")).toBe(settled);
  });

  it("a handler that throws answers 500, settles nothing, and frees the payment to pay again", async () => {
    const settled = facilitator.count("settle");
    const request = paid("/api/throws");
    const signature = request.headers.get("payment-signature") as string;
    const response = await GET(request);
    expect(response.status).toBe(500);
    expect(facilitator.count("settle")).toBe(settled);
    handlers["/api/throws"] = async () => Response.json({ fixed: true });
    const again = await GET(
      new Request(`${ORIGIN}/api/throws`, { headers: { "payment-signature": signature } }),
    );
    expect(again.status).toBe(200);
    expect(facilitator.count("settle") - settled).toBe(1);
  });

  it("the handler's public caching is made private on a paid answer", async () => {
    const response = await GET(paid("/api/cached"));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private");
  });

  it("settle-before: settled before the handler reads the body, which it still gets", async () => {
    const response = await GET(
      paid("/api/before", {
        method: "POST",
        body: "hello",
        headers: { "content-type": "text/plain", "content-length": "5" },
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ got: "hello" });
    expect(response.headers.get("payment-response")).not.toBeNull();
  });

  it("a request whose client went away while verifying is neither served nor settled", async () => {
    const settled = facilitator.count("settle");
    const before = calls;
    const abort = new AbortController();
    const request = new Request(paid("/api/quote"), { signal: abort.signal });
    abort.abort();
    const response = await GET(request);
    expect(response.status).toBe(499);
    expect(calls).toBe(before);
    expect(facilitator.count("settle")).toBe(settled);
  });
});
