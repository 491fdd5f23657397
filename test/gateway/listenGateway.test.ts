import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/createGateway.js";
import { listenGateway } from "../../src/gateway/listenGateway.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let facilitator: FacilitatorDouble;
let upstream: TestUpstream;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  upstream = await startUpstream();
});

afterAll(async () => {
  await upstream.stop();
  await facilitator.close();
});

const config = () => gatewayConfig({ upstreamUrl: upstream.url, facilitatorUrl: facilitator.url });

describe("the gateway is built apart from listening", () => {
  it("createGateway only assembles: its app answers health and readiness without a socket of its own", async () => {
    const gateway = createGateway(config());
    expect((await request(gateway.app).get("/healthz")).body).toEqual({ status: "ok" });
    const ready = await request(gateway.app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, draining: false });
    expect(gateway.drain.draining).toBe(false);
  });

  it("its own routes are read as Express routed them: any case, one trailing slash, GET and HEAD only", async () => {
    const gateway = createGateway(config());
    for (const path of ["/healthz", "/HealthZ", "/healthz/", "/healthz?probe=1"]) {
      const response = await request(gateway.app).get(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok" });
    }
    const head = await request(gateway.app).head("/healthz");
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toMatch(/^application\/json/);
    // Not the gateway's own: these go on to the upstream like any unpriced path (the metrics are on a
    // listener of their own unless metrics.onGatewayListener).
    const before = upstream.seen.length;
    for (const path of ["/healthz//", "/healthzz", "/metrics"]) await request(gateway.app).get(path);
    await request(gateway.app).post("/healthz").send("{}");
    expect(upstream.seen.slice(before).map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      "GET /healthz",
      "GET /healthzz",
      "GET /metrics",
      "POST /healthz",
    ]);
  });

  it("listenGateway serves it; close() drains: /readyz is 503 draining and answers say Connection: close", async () => {
    const gateway = createGateway(config());
    const running = await listenGateway(gateway);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const closing = running.close();
    expect(gateway.drain.draining).toBe(true);
    const ready = await request(gateway.app).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ ready: true, draining: true });
    expect(ready.headers.connection).toBe("close");
    await closing;
    expect(running.server.listening).toBe(false);
  });
});
