import { parse as parseLegacyUrl } from "node:url";
import { x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";

/** An official route config, as the `@x402/express` README writes one. */
export function officialRoute(payTo: string): Record<string, unknown> {
  return { accepts: { scheme: "exact", price: "$0.01", network: "eip155:84532", payTo } };
}

/**
 * The installed `@x402/core` matcher, as `@x402/express` calls it: Express's `req.path` (the legacy
 * parse of the target) and its `decodeURIComponent` reading. The oracle of what the official would price.
 */
export function officialMatcher(routes: unknown): (method: string, target: string) => boolean {
  const server = new x402HTTPResourceServer(
    new x402ResourceServer(),
    routes as ConstructorParameters<typeof x402HTTPResourceServer>[1],
  );
  return (method, target) => {
    const path = parseLegacyUrl(target).pathname ?? "/";
    let decodedPath = path;
    try {
      decodedPath = decodeURIComponent(path);
    } catch {
      // As @x402/express: an undecodable path is matched as written.
    }
    return server.requiresPayment({
      adapter: undefined as never,
      path,
      decodedPath,
      method,
    } as Parameters<typeof server.requiresPayment>[0]);
  };
}
