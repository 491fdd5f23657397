import type { GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";

/** The public URL sign-in proofs are bound to in the recognition suites. */
export const MEMBER_PUBLIC_URL = "http://gateway.test";

/**
 * A gateway config with one priced route, `GET /member` ($0.01), that recognized payers may sign in to:
 * recognition against the Starknet node double at `rpcUrl`, the upstream and facilitator of the suite.
 * `recognition` adds to (or overrides) the recognition settings; `extra` to the top-level keys.
 */
export function memberRouteConfig(
  peers: { facilitatorUrl: string; upstreamUrl: string; rpcUrl: string },
  options: { recognition?: Record<string, unknown>; extra?: Partial<GatewayConfigInput> } = {},
): GatewayConfigInput {
  return {
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: { url: peers.facilitatorUrl },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:84532",
    publicUrl: MEMBER_PUBLIC_URL,
    upstreams: [{ url: peers.upstreamUrl }],
    recognition: { rpcUrl: peers.rpcUrl, contract: "0x0456abc", timeoutMs: 2_000, ...options.recognition },
    routes: { "GET /member": { price: "$0.01" } },
    ...options.extra,
  };
}
