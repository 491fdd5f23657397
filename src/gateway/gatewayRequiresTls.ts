import type { IncomingMessage } from "node:http";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { isLoopbackHost } from "../common/isLoopbackHost.js";
import type { ProxyTrust } from "./ProxyTrust.js";

/**
 * Whether a priced request must have come over TLS, as the gateway reads it: never on a TLS or loopback
 * listener or with `listen.allowPlainHttp`; else unless a trusted proxy says the client used HTTPS, or
 * (no proxy having said otherwise) the client is on loopback, as `x402()` exempts loopback clients.
 */
export function gatewayRequiresTls(
  config: Pick<GatewayConfig, "listen">,
  trust: ProxyTrust,
): (req: IncomingMessage) => boolean {
  const { listen } = config;
  if (listen.tls !== undefined || listen.allowPlainHttp || isLoopbackHost(listen.host)) return () => false;
  return (req) => {
    if (trust.protocol(req) === "https") return false;
    // A trusted proxy that says "http" speaks for a client behind it, wherever the proxy itself runs.
    const forwarded =
      req.headers["x-forwarded-proto"] !== undefined && trust.trusts(req.socket.remoteAddress);
    return forwarded || !isLoopbackHost(trust.clientAddress(req));
  };
}
