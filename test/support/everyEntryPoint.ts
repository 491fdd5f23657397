import type { RequestListener } from "node:http";
import { afterAll, beforeAll } from "vitest";
import { createGateway } from "../../src/gateway/createGateway.js";
import type { X402Options } from "../../src/index.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "./facilitatorDouble.js";
import { PAY_TO } from "./payments.js";
import { PAYWALL_ADAPTERS, type TestHandler } from "./paywallAdapters.js";

/** A facilitator double and an upstream, started before the suite's tests and stopped after them. */
export function paywallPeers(): { facilitator: FacilitatorDouble; upstream: TestUpstream } {
  const peers = {} as { facilitator: FacilitatorDouble; upstream: TestUpstream };
  beforeAll(async () => {
    [peers.facilitator, peers.upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
  });
  afterAll(async () => {
    await peers.facilitator?.close();
    await peers.upstream?.stop();
  });
  return peers;
}

/**
 * The same routes (paid on Base Sepolia to `PAY_TO`) under every adapter, its handlers by
 * `"METHOD /path"`, and under the gateway in front of the peers' upstream (which answers for itself).
 */
export function everyEntryPoint(
  peers: { facilitator: FacilitatorDouble; upstream: TestUpstream },
  routes: X402Options["routes"],
  handlers: Record<string, TestHandler>,
): Array<{ name: string; app: () => RequestListener; upstreamAnswers: boolean }> {
  const options = () =>
    ({
      facilitator: { url: peers.facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      routes,
    }) as X402Options;
  return [
    ...PAYWALL_ADAPTERS.map((adapter) => ({
      name: adapter.name,
      upstreamAnswers: false,
      app: () => adapter.app(options(), handlers),
    })),
    {
      name: "gateway",
      upstreamAnswers: true,
      app: () =>
        createGateway(
          gatewayConfig({
            upstreamUrl: peers.upstream.url,
            facilitatorUrl: peers.facilitator.url,
            payTo: PAY_TO,
            network: "eip155:84532",
            routes: routes as never,
          }),
        ).app,
    },
  ];
}
