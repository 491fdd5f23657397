import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gatewayConfigSchema, type GatewayConfigInput } from "../config/gatewayConfigSchema.js";
import { createGateway } from "../gateway/createGateway.js";
import type { RunningGateway } from "../gateway/listenGateway.js";
import { findFreePort } from "./findFreePort.js";
import { startLocalStack, type LocalStack } from "./startLocalStack.js";

/** The price of each route of the stack: 0.01 TestUSDC (6 decimals). */
export const PAYWALL_PAGE_PRICE = 10_000n;

export interface PaywallPageStack {
  stack: LocalStack;
  gateway: RunningGateway;
  /** The gateway's base URL, `http://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The browser paywall's stage: anvil, the local facilitator, an upstream answering JSON, and the gateway
 * in front of it pricing `GET /report` (and any further `routes`) at {@link PAYWALL_PAGE_PRICE} in TestUSDC.
 */
export async function startPaywallPageStack(
  routes: GatewayConfigInput["routes"] = {},
  options: {
    /** Runs before the upstream answers a request for `path` (a test moves funds there, between verify and settle). */
    beforeAnswer?: (path: string) => Promise<void>;
    /** Route keys with recognition on, against the stack's layer-2 stand-in (sets `publicUrl`). */
    recognized?: readonly string[];
    /** How passes are signed, for routes that sell them (`pass`). */
    passes?: GatewayConfigInput["passes"];
    /** Also start the LOCAL Solana engine (`stack.solana`), the page reading it (`paywall.solanaRpcUrls`). */
    solana?: boolean;
  } = {},
): Promise<PaywallPageStack> {
  const stack = await startLocalStack({ solana: options.solana ?? false });
  const solana = stack.solana;
  const upstream = createServer((req, res) => {
    const path = req.url ?? "/";
    void (options.beforeAnswer?.(path) ?? Promise.resolve()).then(
      () => {
        const report = "Staking report: 3 validators, 12.5% APR, all healthy";
        res.setHeader("Content-Type", "application/json; charset=utf-8");
        res.end(JSON.stringify({ report, path }));
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
  });
  let gateway: RunningGateway | undefined;
  try {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const price = { amount: PAYWALL_PAGE_PRICE.toString(), asset: stack.token.address };
    const recognized = options.recognized ?? [];
    // Recognition binds sign-in proofs to the gateway's host: its port is known before it listens.
    const port = recognized.length === 0 ? 0 : await findFreePort("127.0.0.1");
    const recognition = { rpcUrl: stack.layer2.url, contract: stack.layer2.contract, negativeTtlMs: 0 };
    const config = gatewayConfigSchema.parse({
      listen: { host: "127.0.0.1", port },
      ...(recognized.length === 0 ? {} : { publicUrl: `http://127.0.0.1:${port}` }),
      facilitator: { url: stack.facilitatorUrl },
      payTo: stack.accounts.payee.address,
      network: stack.network,
      assets: [
        {
          network: stack.network,
          address: stack.token.address,
          decimals: stack.token.decimals,
          name: stack.token.name,
          version: stack.token.version,
          symbol: "USDC",
        },
      ],
      upstreams: [{ url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` }],
      routes: {
        "GET /report": { price, description: "Today's staking report" },
        ...withPrice(routes, price, recognized, recognition),
      },
      paywall: {
        appName: "x402 staking gateway",
        ...(solana && { solanaRpcUrls: { [solana.network]: solana.rpcUrl } }),
      },
      ...(options.passes === undefined ? {} : { passes: options.passes }),
      logging: { level: "silent" },
    });
    gateway = await createGateway(config).listen();
  } catch (error) {
    await closeServer(upstream);
    await stack.stop();
    throw error;
  }
  const running = gateway;
  return {
    stack,
    gateway: running,
    url: running.url,
    stop: async () => {
      await running.close();
      await closeServer(upstream);
      await stack.stop();
    },
  };
}

/** Each extra route at the stack's price unless it names its own; recognition on for `recognized` ones. */
function withPrice(
  routes: GatewayConfigInput["routes"],
  price: { amount: string; asset: string },
  recognized: readonly string[],
  recognition: { rpcUrl: string; contract: string; negativeTtlMs: number },
): GatewayConfigInput["routes"] {
  return Object.fromEntries(
    Object.entries(routes).map(([key, route]) => [
      key,
      { price, ...(recognized.includes(key) ? { recognition } : {}), ...route },
    ]),
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
