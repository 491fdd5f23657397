import {
  gatewayConfigSchema,
  type GatewayConfig,
  type GatewayConfigInput,
} from "../../../src/config/gatewayConfigSchema.js";

/** A Base Sepolia payee; the built-in USDC of that network prices money strings. */
export const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/** A valid config for tests: port 0 on loopback, one upstream, `GET /priced` for $0.01, quiet logs. */
export function gatewayConfig(
  overrides: Partial<GatewayConfigInput> & { upstreamUrl: string; facilitatorUrl?: string },
): GatewayConfig {
  const { upstreamUrl, facilitatorUrl, ...rest } = overrides;
  return gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    facilitator: { url: facilitatorUrl ?? "http://127.0.0.1:9" },
    payTo: PAY_TO,
    network: "eip155:84532",
    upstreams: [{ url: upstreamUrl }],
    routes: { "GET /priced": { price: "$0.01" }, "POST /priced": { price: "$0.01" } },
    logging: { level: "silent" },
    ...rest,
  });
}
