import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The demo's network label: the quote route is `GET /x402-<label>/v1/quote`. */
export const DEMO_NETWORK_LABEL = "anvil";
export const DEMO_QUOTE_PATH = `/x402-${DEMO_NETWORK_LABEL}/v1/quote`;

export interface DemoQuoteUpstream {
  url: string;
  close(): Promise<void>;
}

/**
 * The upstream of the demo's quote route: a fixed, clearly fake STRK/USDC quote on the local chain.
 * It exists so `npm start` has something behind `GET /x402-anvil/v1/quote`; the staking backend has no such route.
 */
export async function startDemoQuoteUpstream(
  options: { now?: () => number } = {},
): Promise<DemoQuoteUpstream> {
  const now = options.now ?? Date.now;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" || path !== DEMO_QUOTE_PATH) {
      res.writeHead(404, { "Content-Type": "application/json" });
      return void res.end(
        JSON.stringify({ error: "not_found", message: `only GET ${DEMO_QUOTE_PATH} is served here` }),
      );
    }
    const issuedAt = now();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        network: "eip155:31337",
        pair: "STRK/USDC",
        price: "0.1500",
        issuedAt: new Date(issuedAt).toISOString(),
        expiresAt: new Date(issuedAt + 60_000).toISOString(),
        demo: "fixed price on a local anvil chain, paid in a test token; not market data",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
