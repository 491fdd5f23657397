import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";
import { x402, type X402Options } from "../../../src/index.js";
import type { LocalStack } from "../../../src/dev/startLocalStack.js";

/** Prices used by the end-to-end suites, in TestUSDC's smallest unit (6 decimals). */
export const PRICE = { quote: 10_000n, order: 20_000n, both: 30_000n } as const;

export interface PaidApp {
  url: string;
  /** Upstream hits per route handler. */
  hits: Record<string, number>;
  stop(): Promise<void>;
}

export interface StartPaidAppOptions {
  stack: LocalStack;
  /** Facilitator base URL; default the stack's. */
  facilitatorUrl?: string;
  /** The paywall's `facilitator` option as it is (e.g. an official FacilitatorClient); wins over `facilitatorUrl`. */
  facilitator?: X402Options["facilitator"];
  /** Run by `GET /drain` before it answers (e.g. the payer spends its funds before settlement). */
  drain?: () => Promise<void>;
}

/**
 * An Express app with `x402()` in front of a small upstream (its route handlers), listening on loopback:
 * `GET /quote`, `POST /order` (priced as a money string through `assets`), `GET /broken` (answers 500,
 * priced like /quote), `GET /both` (offers exact-pq first, then exact), `GET /drain` (runs `drain`, then
 * answers a secret, priced like /quote).
 */
export async function startPaidApp(options: StartPaidAppOptions): Promise<PaidApp> {
  const { stack } = options;
  const token = stack.token;
  const atomic = (amount: bigint) => ({
    amount: amount.toString(),
    asset: token.address,
    extra: { name: token.name, version: token.version },
  });
  const paywall: X402Options = {
    facilitator: options.facilitator ?? {
      url: options.facilitatorUrl ?? stack.facilitatorUrl,
      timeoutMs: 10_000,
    },
    payTo: stack.accounts.payee.address,
    network: "eip155:31337",
    assets: [
      {
        network: "eip155:31337",
        address: token.address,
        decimals: token.decimals,
        name: token.name,
        version: token.version,
      },
    ],
    routes: {
      "GET /quote": { price: atomic(PRICE.quote), description: "a price quote" },
      "POST /order": { price: "$0.02", description: "place an order" },
      "GET /broken": { price: atomic(PRICE.quote), description: "an upstream that fails" },
      "GET /drain": { price: atomic(PRICE.quote), description: "runs a hook before answering" },
      "GET /both": {
        scheme: "exact-pq",
        price: atomic(PRICE.both),
        accepts: [{ scheme: "exact", price: atomic(PRICE.both) }],
        description: "payable with exact-pq or exact",
      },
    },
  };
  const hits: Record<string, number> = { quote: 0, order: 0, broken: 0, both: 0, drain: 0 };
  const counted =
    (name: string, handler: RequestHandler): RequestHandler =>
    (req, res, next) => {
      hits[name] = (hits[name] ?? 0) + 1;
      return handler(req, res, next);
    };

  const app = express();
  app.use(express.json());
  app.use(x402(paywall));
  app.get(
    "/quote",
    counted("quote", (_req, res) => void res.json({ pair: "ETH/USDC", price: "3150.25" })),
  );
  app.post(
    "/order",
    counted("order", (req, res) => void res.json({ orderId: "ord_1", received: req.body as unknown })),
  );
  app.get(
    "/broken",
    counted("broken", (_req, res) => void res.status(500).json({ error: "upstream exploded" })),
  );
  app.get(
    "/both",
    counted("both", (_req, res) => void res.json({ paid: true })),
  );
  app.get(
    "/drain",
    counted("drain", async (_req, res) => {
      await options.drain?.();
      res.json({ secret: "only for paid requests" });
    }),
  );

  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
