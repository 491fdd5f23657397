import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

/**
 * Metrics are not public by default: they show per-route outcome counters (revenue) and process
 * details, so they live on a listener of their own on loopback, and on the gateway's listener only with
 * the admin token when asked (`metrics.onGatewayListener`).
 */
const TOKEN = "m".repeat(40);
let upstream: TestUpstream & { release(): void };
let facilitator: FacilitatorDouble;
const running: RunningGateway[] = [];

beforeAll(async () => {
  [upstream, facilitator] = await Promise.all([startUpstream(), startFacilitatorDouble()]);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await Promise.all([upstream?.stop(), facilitator?.close()]);
});

async function start(overrides: Omit<Parameters<typeof gatewayConfig>[0], "upstreamUrl"> = {}) {
  const config = gatewayConfig({ facilitatorUrl: facilitator.url, upstreamUrl: upstream.url, ...overrides });
  const gateway = await createGateway(config, { logger: createGatewayLogger("silent") }).listen();
  running.push(gateway);
  return gateway;
}

const isMetrics = (text: string) => text.includes("x402_gateway_requests_total");

describe("metrics: a listener of their own", () => {
  it("by default the gateway's listener does not serve them: /metrics there is an ordinary upstream path", async () => {
    const gateway = await start();
    await fetch(`${gateway.url}/priced`);
    const before = upstream.seen.length;
    const answer = await fetch(`${gateway.url}/metrics`);
    expect(isMetrics(await answer.text())).toBe(false);
    expect(upstream.seen.slice(before).map((seen) => `${seen.method} ${seen.url}`)).toEqual(["GET /metrics"]);
  });

  it("they are served on the metrics listener, on 127.0.0.1, and only at metrics.path", async () => {
    const gateway = await start();
    await fetch(`${gateway.url}/priced`);
    expect(gateway.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(gateway.metricsUrl!).port).not.toBe(new URL(gateway.url).port);
    const answer = await fetch(gateway.metricsUrl!);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await answer.text()).toContain(
      'x402_gateway_requests_total{route="GET /priced",outcome="offered",code="402"} 1',
    );
    const elsewhere = await fetch(new URL("/readyz", gateway.metricsUrl!));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ error: "not_found" });
  });

  it("the metrics listener binds loopback by default, even when the gateway's listener binds every interface", async () => {
    const config = gatewayConfigSchema.parse({
      listen: { host: "0.0.0.0", port: 0, allowPlainHttp: true },
      facilitator: { url: facilitator.url },
      payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      network: "eip155:84532",
      upstreams: [{ url: upstream.url }],
      routes: { "GET /priced": { price: "$0.01" } },
      logging: { level: "silent" },
    });
    expect(config.metrics.listen).toEqual({ host: "127.0.0.1" });
    const gateway = await createGateway(config).listen();
    running.push(gateway);
    const metricsServer = new URL(gateway.metricsUrl!);
    expect(metricsServer.hostname).toBe("127.0.0.1");
  });

  it("metrics.listen: { port } is honoured; metrics.listen: false opens none; metrics.enabled: false neither", async () => {
    const port = await findFreePort();
    const fixed = await start({ metrics: { listen: { host: "127.0.0.1", port } } });
    expect(fixed.metricsUrl).toBe(`http://127.0.0.1:${port}/metrics`);
    expect(isMetrics(await (await fetch(fixed.metricsUrl!)).text())).toBe(true);
    await fixed.close();
    expect((await start({ metrics: { listen: false } })).metricsUrl).toBeUndefined();
    expect((await start({ metrics: { enabled: false } })).metricsUrl).toBeUndefined();
  });

  it("close() closes the metrics listener too", async () => {
    const gateway = await start();
    const url = gateway.metricsUrl!;
    expect((await fetch(url)).status).toBe(200);
    running.splice(running.indexOf(gateway), 1);
    await gateway.close();
    await expect(fetch(url)).rejects.toThrow();
  });

  it("a metrics port already taken stops the start with an error naming metrics.listen", async () => {
    const port = await findFreePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const config = gatewayConfig({
        facilitatorUrl: facilitator.url,
        upstreamUrl: upstream.url,
        metrics: { listen: { host: "127.0.0.1", port } },
      });
      await expect(createGateway(config, { logger: createGatewayLogger("silent") }).listen()).rejects.toThrow(
        /metrics\.listen.*EADDRINUSE/,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe("metrics on the gateway's listener (metrics.onGatewayListener)", () => {
  const withToken = {
    metrics: { onGatewayListener: true },
    admin: { token: TOKEN },
  } as const;

  it("only with Authorization: Bearer <admin.token>; without it, or with another, 401 admin_unauthorized", async () => {
    const gateway = await start(withToken);
    const before = upstream.seen.length;
    for (const authorization of [undefined, "Bearer wrong-token", `Basic ${TOKEN}`, TOKEN]) {
      const answer = await fetch(`${gateway.url}/metrics`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer /);
      const body = await answer.text();
      expect(JSON.parse(body)).toMatchObject({ error: "admin_unauthorized" });
      expect(isMetrics(body)).toBe(false);
    }
    const answer = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(isMetrics(await answer.text())).toBe(true);
    // Never forwarded upstream, refused or not; the metrics listener still serves them too.
    expect(upstream.seen.length).toBe(before);
    expect(isMetrics(await (await fetch(gateway.metricsUrl!)).text())).toBe(true);
  });

  it("the config refuses it without admin.token, and a metrics port equal to the gateway's", () => {
    const problems = (input: Record<string, unknown>) => {
      const parsed = gatewayConfigSchema.safeParse({
        listen: { host: "127.0.0.1", port: 8402 },
        facilitator: { url: facilitator.url },
        payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        network: "eip155:84532",
        upstreams: [{ url: upstream.url }],
        routes: { "GET /priced": { price: "$0.01" } },
        ...input,
      });
      return parsed.success
        ? []
        : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };
    expect(problems({ metrics: { onGatewayListener: true } })).toEqual([
      expect.stringMatching(/^metrics\.onGatewayListener: metrics\.onGatewayListener needs admin\.token/),
    ]);
    expect(problems({ metrics: { onGatewayListener: true }, admin: { token: TOKEN } })).toEqual([]);
    expect(problems({ metrics: { listen: { port: 8402 } } })).toEqual([
      expect.stringMatching(/^metrics\.listen\.port: metrics\.listen\.port may not be listen\.port/),
    ]);
    expect(problems({ metrics: { listen: { port: 8402 }, enabled: false } })).toEqual([]);
  });

  it("a config built in code without the token is refused when the gateway is assembled", () => {
    const config = gatewayConfig({ facilitatorUrl: facilitator.url, upstreamUrl: upstream.url });
    config.metrics.onGatewayListener = true;
    expect(() => createGateway(config, { logger: createGatewayLogger("silent") })).toThrow(ConfigError);
  });
});
