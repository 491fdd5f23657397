import { isLoopbackHost } from "../common/isLoopbackHost.js";

/** The keys that decide whether the gateway's listener may speak plain HTTP. */
export interface ListenerSettings {
  listen: { host: string; tls?: unknown; allowPlainHttp?: boolean | undefined };
  trustProxy: readonly string[];
}

/**
 * Why this listener may not start, or `undefined`: plain HTTP off loopback with no TLS-terminating proxy
 * named in `trustProxy` and no `listen.allowPlainHttp` would answer every priced route 403 tls_required.
 */
export function plainHttpListenerProblem({ listen, trustProxy }: ListenerSettings): string | undefined {
  if (listen.tls !== undefined || listen.allowPlainHttp === true) return undefined;
  if (trustProxy.length > 0 || isLoopbackHost(listen.host)) return undefined;
  return (
    `${listen.host} is not a loopback address and listen.tls is unset: payments would travel in plain HTTP. ` +
    "Set listen.tls, name the TLS-terminating proxy in trustProxy, or set listen.allowPlainHttp: true if plain HTTP is intended"
  );
}
