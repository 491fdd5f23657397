import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { rawHttp } from "../security/support/rawHttp.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

const SPOOFED = {
  Forwarded: "for=6.6.6.6;proto=https",
  "X-Real-IP": "6.6.6.6",
  "True-Client-IP": "6.6.6.6",
  "X-Client-IP": "6.6.6.6",
  "CF-Connecting-IP": "6.6.6.6",
  // Path rewrites IIS, Symfony and Spring route on (issue 20, item 9); free paths, so the paywall lets them by.
  "X-Original-URL": "/elsewhere",
  "X-Rewrite-URL": "/elsewhere",
  "X-Forwarded-Prefix": "/prefix",
};

let upstream: TestUpstream;
const running: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});

afterAll(async () => {
  await Promise.all(running.map((gateway) => gateway.close()));
  await upstream.stop();
});

async function forwardedHeaders(trustProxy: string[]) {
  const gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url, trustProxy })).listen();
  running.push(gateway);
  const next = upstream.nextRequest();
  const response = await rawHttp(gateway.url, { method: "GET", target: "/free", headers: SPOOFED });
  expect(response.status).toBe(200);
  return (await next).headers;
}

describe("gateway: client IP and path rewrite headers (issue 15 item 12, issue 20 item 9)", () => {
  it("drops Forwarded, True-Client-IP… from an untrusted client and sets X-Real-IP to its address", async () => {
    const headers = await forwardedHeaders([]);
    expect(headers["forwarded"]).toBeUndefined();
    expect(headers["true-client-ip"]).toBeUndefined();
    expect(headers["x-client-ip"]).toBeUndefined();
    expect(headers["cf-connecting-ip"]).toBeUndefined();
    expect(headers["x-real-ip"]).toBe("127.0.0.1");
    expect(headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(headers["x-original-url"]).toBeUndefined();
    expect(headers["x-rewrite-url"]).toBeUndefined();
    expect(headers["x-forwarded-prefix"]).toBeUndefined();
  });

  it("keeps them from a trusted proxy", async () => {
    const headers = await forwardedHeaders(["127.0.0.1"]);
    expect(headers["forwarded"]).toBe(SPOOFED.Forwarded);
    expect(headers["x-real-ip"]).toBe("6.6.6.6");
    expect(headers["x-original-url"]).toBe("/elsewhere");
    expect(headers["x-forwarded-prefix"]).toBe("/prefix");
  });
});
