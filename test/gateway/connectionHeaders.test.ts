import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { rawHttp } from "../security/support/rawHttp.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url })).listen();
});

afterAll(async () => {
  await gateway.close();
  await upstream.stop();
});

describe("gateway: Connection header", () => {
  it.each(["keep-alive, content-length", "Content-Length", "close, transfer-encoding", "host"])(
    "Connection: %s naming a framing header → 400 invalid_header, nothing forwarded",
    async (connection) => {
      const before = upstream.seen.length;
      const response = await rawHttp(gateway.url, {
        method: "POST",
        target: "/free",
        headers: { Connection: connection },
        body: '{"a":1}',
      });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ error: "invalid_header" });
      expect(upstream.seen.length).toBe(before);
    },
  );

  it("honours the client's Connection: close on a proxied answer (the connection is closed after it)", async () => {
    // rawHttp resolves only when the server closes the connection; a kept-alive one would hang here.
    const response = await Promise.race([
      rawHttp(gateway.url, { method: "GET", target: "/free", headers: { Connection: "close" } }),
      new Promise<"kept open">((resolve) => setTimeout(() => resolve("kept open"), 3000)),
    ]);
    expect(response).not.toBe("kept open");
    expect(response).toMatchObject({ status: 200, headers: { connection: "close" } });
  });

  it("keeps the connection alive when the client did not ask to close it", async () => {
    const response = await fetch(`${gateway.url}/free`);
    await response.arrayBuffer();
    expect(response.headers.get("connection")).toBe("keep-alive");
  });
});
