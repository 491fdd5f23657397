import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream & { release(): void };
let open: RunningGateway;
let closed: RunningGateway;
const APP = "https://wallet.example";

beforeAll(async () => {
  upstream = await startUpstream();
  open = await createGateway(
    gatewayConfig({ upstreamUrl: upstream.url, cors: { allowedOrigins: [APP] } }),
  ).listen();
  closed = await createGateway(gatewayConfig({ upstreamUrl: upstream.url })).listen();
});

afterAll(async () => {
  await open.close();
  await closed.close();
  await upstream.stop();
});

const preflight = (base: string, origin: string) =>
  fetch(`${base}/priced`, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "payment-signature",
    },
  });

describe("CORS for browser apps that pay", () => {
  it("answers an allowed origin's preflight itself, allowing the payment headers", async () => {
    const res = await preflight(open.url, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-headers")).toMatch(/PAYMENT-SIGNATURE/);
    expect(res.headers.get("access-control-allow-headers")).toMatch(/SIGN-IN-WITH-X/);
    expect(res.headers.get("payment-required")).toBeNull();
  });

  it("lets an allowed origin read the offer from a 402", async () => {
    const res = await fetch(`${open.url}/priced`, { headers: { Origin: APP } });
    expect(res.status).toBe(402);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-expose-headers")).toMatch(/PAYMENT-REQUIRED, PAYMENT-RESPONSE/);
    expect(res.headers.get("vary")).toMatch(/Origin/);
  });

  it("grants nothing to another origin, nor when CORS is off", async () => {
    const other = await fetch(`${open.url}/priced`, { headers: { Origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const off = await preflight(closed.url, APP);
    expect(off.headers.get("access-control-allow-origin")).toBeNull();
  });
});
