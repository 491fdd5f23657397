import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { FacilitatorSupportError } from "../../src/paywall/setup/FacilitatorSupportError.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { closedPort, startUpstream, type TestUpstream } from "./support/startUpstream.js";

/** `facilitatorSupport`: the start-up read of `/supported` warns by default, and stops the start with `require`. */
let facilitator: FacilitatorDouble;
let upstream: TestUpstream;
const running: RunningGateway[] = [];

beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
  // It settles Base mainnet only: the priced routes are on Base Sepolia.
  facilitator.kinds = [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }];
});

afterAll(async () => {
  await Promise.all(running.map((gateway) => gateway.close()));
  await Promise.all([facilitator.close(), upstream.stop()]);
});

const start = (overrides: Omit<Parameters<typeof gatewayConfig>[0], "upstreamUrl">) =>
  createGateway(gatewayConfig({ upstreamUrl: upstream.url, ...overrides }), {
    logger: createGatewayLogger("silent"),
  }).listen();

describe("facilitatorSupport", () => {
  it("warn (the default): starts, and serves offers", async () => {
    const gateway = await start({ facilitatorUrl: facilitator.url });
    running.push(gateway);
    expect((await fetch(`${gateway.url}/priced`)).status).toBe(402);
  });

  it("require: refuses to start, naming every option the facilitator does not list", async () => {
    const failure = await start({ facilitatorUrl: facilitator.url, facilitatorSupport: "require" }).then(
      (gateway) => {
        running.push(gateway);
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(FacilitatorSupportError);
    expect((failure as Error).message).toContain("GET /priced: exact on eip155:84532");
    expect((failure as Error).message).toContain("POST /priced: exact on eip155:84532");
  });

  it("require: refuses to start when /supported cannot be read", async () => {
    const failure = await start({
      facilitatorUrl: `http://127.0.0.1:${await closedPort()}`,
      facilitatorSupport: "require",
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FacilitatorSupportError);
    expect((failure as Error).message).toMatch(/could not be read/);
  });

  it("require: starts when every option is listed", async () => {
    facilitator.kinds = [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }];
    const gateway = await start({ facilitatorUrl: facilitator.url, facilitatorSupport: "require" });
    running.push(gateway);
    expect((await fetch(`${gateway.url}/priced`)).status).toBe(402);
  });
});
