import { Agent, createServer, request as httpRequest, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { pino, type Logger } from "pino";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { HTTPFacilitatorClient, type FacilitatorClient, type RoutesConfig } from "@x402/core/server";
import { paymentMiddleware as officialHonoMiddleware } from "@x402/hono";
import { Hono, type MiddlewareHandler } from "hono";
import { getRequestListener } from "@hono/node-server";
import { x402Hono } from "../src/adapters/hono.js";
import { gatewayConfigSchema } from "../src/config/gatewayConfigSchema.js";
import type { Facilitator } from "../src/facilitator/Facilitator.js";
import { x402 } from "../src/adapters/express.js";
import { encodeBase64Json } from "../src/protocol/base64Json.js";
import type { PaymentPayload, PaymentRequirements } from "../src/protocol/schemas.js";
import { createGateway } from "../src/gateway/createGateway.js";
import { createGatewayLogger } from "../src/gateway/createGatewayLogger.js";
import { createHash } from "node:crypto";
import { createSigningKey } from "../src/protocol/cbor/signatures.js";
import { startCborFacilitator } from "../src/dev/startCborFacilitator.js";

/** The one priced route every contender serves, and what it costs. */
export const ROUTE = "/api/weather";
export const PRICE = "$0.001";
export const NETWORK = "eip155:84532" as const;
export const PAY_TO = "0x2222222222222222222222222222222222222222";
/** What the handler (or the upstream) answers once paid, or on a free path. */
export const UPSTREAM_BODY = JSON.stringify({ city: "Paris", temperatureC: 21, sky: "clear" });

export interface RunningContender {
  url: string;
  close(): Promise<void>;
}

export interface ContenderOptions {
  /** Where the gateway and the proxy floor forward to. */
  upstreamUrl?: string;
  /** The gateway's access log: on stdout at `info` (as deployed), or silent (tests). */
  log?: "stdout" | "silent";
  /** The instant facilitator's settlement takes this long instead (to hold responses). */
  settleDelayMs?: number;
  /** Reach the facilitator over HTTP at this URL (the `facilitator` contender, in its own process). */
  facilitatorUrl?: string;
  /** The payment ledger: Redis at this URL (under a fresh key prefix), instead of in memory. */
  redisUrl?: string;
  /** The priced route also takes CBOR payments, settled by the CBOR facilitator at this URL. */
  cborFacilitatorUrl?: string;
  /**
   * The route is priced on this Solana network (the LOCAL engine's: devnet's id, its USDC) instead of Base
   * Sepolia, paid to its payee; the facilitator names its fee payer (scenario 15). Made by the runner with
   * `benchSolanaChain()` (bench/svmPaymentPool.ts), so no server process loads Solana code it does not need.
   */
  solana?: BenchChain;
}

/** Where a contender's route is paid: its network, payee, and (Solana) the fee payer the facilitator names. */
export interface BenchChain {
  network: string;
  payTo: string;
  /** Solana: the facilitator's fee payer (`extra.feePayer` of the offer). */
  feePayer?: string;
  /** Solana: the payer the pre-signed transactions come from (what the instant facilitator reports). */
  payer?: string;
}

const EVM_CHAIN: BenchChain = { network: NETWORK, payTo: PAY_TO };
const chainOf = (options: ContenderOptions): BenchChain => options.solana ?? EVM_CHAIN;

/** The merchant's name on CBOR offers, and what a CBOR payment of the route costs (0.001 USDC). */
const MERCHANT = "merchant:bench";
const CBOR_PRICE = { currency: "USDC" as const, amount: "1000" };
/** The CBOR payer: a derived test key (never of value), with an account at the bench's CBOR facilitator. */
export const benchCborPayer = () =>
  createSigningKey(
    "ed25519",
    new Uint8Array(createHash("sha256").update("x402-gateway bench cbor payer").digest()),
  );

type Start = (options: ContenderOptions) => Promise<RunningContender>;

const TRANSACTION = `0x${"ab".repeat(32)}`;
/** A Solana transaction signature's shape: 64 bytes in base58 (88 characters here). */
const SOLANA_TRANSACTION = "5".repeat(88);

function payerOf(payload: { payload: Record<string, unknown> }): string | undefined {
  const authorization = payload.payload.authorization as { from?: string } | undefined;
  return authorization?.from;
}

const SUPPORTED = {
  kinds: [{ x402Version: 2, scheme: "exact", network: NETWORK }],
  extensions: [],
  signers: {},
};

/** A facilitator that answers at once, in process: only the paywall's own work is measured. */
export const instantFacilitator: Facilitator = {
  verify: async (payment) => ({ isValid: true, payer: payerOf(payment) }),
  settle: async (payment, requirements) => ({
    success: true,
    transaction: TRANSACTION,
    network: requirements.network,
    payer: payerOf(payment),
  }),
  supported: async () => SUPPORTED,
};

/** The instant facilitator, but settling after `ms`. */
function slowSettling(ms: number): Facilitator {
  return {
    ...instantFacilitator,
    settle: async (payment, requirements) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return instantFacilitator.settle(payment, requirements);
    },
  };
}

/** The same instant facilitator, shaped as the official packages' client. */
const instantFacilitatorClient = {
  verify: async (payment: { payload: Record<string, unknown> }) => ({
    isValid: true,
    payer: payerOf(payment),
  }),
  settle: async (payment: { payload: Record<string, unknown> }, requirements: { network: string }) => ({
    success: true,
    transaction: TRANSACTION,
    network: requirements.network,
    payer: payerOf(payment),
  }),
  getSupported: async () => SUPPORTED,
} as unknown as FacilitatorClient;

/**
 * The instant facilitator's HTTP API: `/verify`, `/settle`, `/supported`, each answered at once in JSON; on
 * `chain`'s network (Solana: `/supported` names the fee payer, the payer is the bench's Solana payer).
 */
function instantFacilitatorServer(chain: BenchChain = EVM_CHAIN): RequestListener {
  const supported = JSON.stringify({
    kinds: [
      {
        x402Version: 2,
        scheme: "exact",
        network: chain.network,
        ...(chain.feePayer ? { extra: { feePayer: chain.feePayer } } : {}),
      },
    ],
    extensions: [],
    signers: {},
  });
  const transaction = chain.feePayer ? SOLANA_TRANSACTION : TRANSACTION;
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const send = (body: string) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      };
      if (req.url?.endsWith("/supported")) return send(supported);
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        paymentPayload: { payload: Record<string, unknown> };
        paymentRequirements: { network: string };
      };
      const payer = chain.payer ?? payerOf(request.paymentPayload);
      if (req.url?.endsWith("/verify")) return send(JSON.stringify({ isValid: true, payer }));
      if (req.url?.endsWith("/settle"))
        return send(
          JSON.stringify({
            success: true,
            transaction,
            network: request.paymentRequirements.network,
            payer,
          }),
        );
      res.writeHead(404).end();
    });
  };
}

/** A Redis ledger under a key prefix of its own (the bench's payments are reused from run to run). */
function redisLedger(url: string) {
  return { type: "redis" as const, url, keyPrefix: `x402:bench:${process.pid}:${Date.now()}:` };
}

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function serve(handler: RequestListener): Promise<RunningContender> {
  const { server, url } = await listen(handler);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const routes = { [`GET ${ROUTE}`]: { price: PRICE, description: "Weather" } };
/** The same route, taking CBOR payments too. */
const cborRoutes = { [`GET ${ROUTE}`]: { price: PRICE, description: "Weather", cbor: CBOR_PRICE } };
const cborSettings = (url: string) => ({ merchantPseudonym: MERCHANT, facilitator: { url } });

/** The route as the official middlewares take it. */
const officialRoutes: RoutesConfig = {
  [`GET ${ROUTE}`]: {
    accepts: { scheme: "exact", price: PRICE, network: NETWORK, payTo: PAY_TO },
    description: "Weather",
  },
};

/** The official packages' facilitator client: over HTTP when the facilitator runs apart, else instant. */
function facilitatorClient(url: string | undefined): FacilitatorClient {
  return url ? new HTTPFacilitatorClient({ url }) : instantFacilitatorClient;
}

/** A Hono app with `paywall` in front of the priced route's handler, served by `@hono/node-server`. */
function serveHono(paywall: MiddlewareHandler): Promise<RunningContender> {
  const app = new Hono();
  app.use(paywall);
  app.get(ROUTE, (c) => c.body(UPSTREAM_BODY, 200, { "content-type": "application/json" }));
  return serve(getRequestListener(app.fetch));
}

function answer(_req: express.Request, res: express.Response): void {
  res.type("application/json").send(UPSTREAM_BODY);
}

/** The offer every 402 contender sends, computed once from `x402()` so the floors carry the same bytes. */
async function precomputedOffer(): Promise<{ header: string; body: string }> {
  const app = express();
  app.use(x402({ facilitator: instantFacilitator, payTo: PAY_TO, network: NETWORK, routes }));
  const running = await serve(app);
  try {
    const response = await fetch(`${running.url}${ROUTE}`);
    return { header: response.headers.get("payment-required") ?? "", body: await response.text() };
  } finally {
    await running.close();
  }
}

function silent(): Logger {
  return pino({ level: "silent" });
}

export const contenders = {
  /** A bare `node:http` upstream: what the gateway and the proxy floor forward to. */
  upstream: async () =>
    serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": UPSTREAM_BODY.length });
      res.end(UPSTREAM_BODY);
    }),

  /** An upstream answering 64 KiB: what a held (paid, not yet settled) response weighs. */
  "upstream-64k": async () => {
    const body = Buffer.alloc(64 * 1024, "x");
    return serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
      res.end(body);
    });
  },

  /** Floor: `node:http` answering a constant 402 with a precomputed header. */
  "bare-http-402": async () => {
    const offer = await precomputedOffer();
    const headers = {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(offer.body),
      "payment-required": offer.header,
    };
    return serve((_req, res) => {
      res.writeHead(402, headers);
      res.end(offer.body);
    });
  },

  /** Floor: Express answering a constant 402 with a precomputed header on the priced route. */
  "bare-express-402": async () => {
    const offer = await precomputedOffer();
    const app = express();
    app.disable("x-powered-by");
    app.get(ROUTE, (_req, res) => {
      res.status(402).set("payment-required", offer.header).type("application/json").send(offer.body);
    });
    return serve(app);
  },

  /**
   * Floor of a middleware in Express: `app.use` answering the same 402 as `x402()` does (its five headers
   * in one `writeHead`, then `end`), with no paywall work — the least `x402()` can cost inside Express.
   */
  "express-middleware-402": async () => {
    const offer = await precomputedOffer();
    const headers = {
      "PAYMENT-REQUIRED": offer.header,
      "Cache-Control": "no-store",
      Vary: "Accept",
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(offer.body),
    };
    const app = express();
    app.disable("x-powered-by");
    app.use((_req, res) => {
      res.writeHead(402, headers);
      res.end(offer.body);
    });
    return serve(app);
  },

  /** Floor: a Hono app on `@hono/node-server` answering a constant 402 with a precomputed header. */
  "bare-hono-402": async () => {
    const offer = await precomputedOffer();
    const headers = { "content-type": "application/json; charset=utf-8", "payment-required": offer.header };
    const app = new Hono();
    app.get(ROUTE, (c) => c.body(offer.body, 402, headers));
    return serve(getRequestListener(app.fetch));
  },

  /**
   * Floor of a paid request over HTTP (scenario 11): `node:http` doing the least a paywall must — decode the
   * payment header, POST it to the facilitator's `/verify` then `/settle` on one keep-alive agent, answer
   * 200 with the body and `PAYMENT-RESPONSE`. No route matching, no replay ledger, no hold, no checks of
   * the replies beyond `isValid`/`success`: not a paywall, the cost of Node's HTTP machinery alone.
   */
  "bare-http-paid": async ({ facilitatorUrl = "http://127.0.0.1:9" }) => {
    const offer = await precomputedOffer();
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const post = (path: string, body: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const request = httpRequest(`${facilitatorUrl}${path}`, {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        });
        request.on("error", reject);
        request.on("response", (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
          response.on("error", reject);
        });
        request.end(body);
      });
    return serve((req, res) => {
      const fail = (status: number) => {
        res.writeHead(status).end();
      };
      const header = req.headers["payment-signature"];
      if (typeof header !== "string") {
        res.writeHead(402, { "content-type": "application/json", "payment-required": offer.header });
        return res.end(offer.body);
      }
      const payment = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { accepted: unknown };
      const body = JSON.stringify({
        x402Version: 2,
        paymentPayload: payment,
        paymentRequirements: payment.accepted,
      });
      post("/verify", body)
        .then((verified) => (verified.isValid === true ? post("/settle", body) : undefined))
        .then((settled) => {
          if (settled?.success !== true) return fail(402);
          res.writeHead(200, {
            "content-type": "application/json",
            "content-length": UPSTREAM_BODY.length,
            "payment-response": Buffer.from(JSON.stringify(settled)).toString("base64"),
          });
          res.end(UPSTREAM_BODY);
        })
        .catch(() => fail(502));
    });
  },

  /** The instant facilitator as an HTTP server, for the paid scenarios that reach it over HTTP. */
  facilitator: async (options) => serve(instantFacilitatorServer(chainOf(options))),

  /** The local CBOR facilitator (real Ed25519 checks, books in memory), the bench payer's account funded. */
  "cbor-facilitator": async () => {
    const running = await startCborFacilitator({
      accounts: [{ publicKey: benchCborPayer().publicKey, balances: { USDC: 10n ** 15n } }],
    });
    return { url: running.url, close: () => running.stop() };
  },

  /** The official `@x402/express` middleware with the exact EVM scheme, on the same route and price. */
  official: async (options) => {
    const { facilitatorUrl } = options;
    const { network, payTo } = chainOf(options);
    const server = new x402ResourceServer(facilitatorClient(facilitatorUrl)).register(
      network as `${string}:${string}`,
      options.solana ? new (await import("@x402/svm/exact/server")).ExactSvmScheme() : new ExactEvmScheme(),
    );
    const app = express();
    app.disable("x-powered-by");
    app.use(
      paymentMiddleware(
        options.solana
          ? {
              [`GET ${ROUTE}`]: {
                accepts: { scheme: "exact", price: PRICE, network: network as `${string}:${string}`, payTo },
                description: "Weather",
              },
            }
          : officialRoutes,
        server,
      ),
    );
    app.get(ROUTE, answer);
    return serve(app);
  },

  /** This project's `x402()` in a bare Express app. */
  x402: async (options) => {
    const { facilitatorUrl, redisUrl, cborFacilitatorUrl } = options;
    const { network, payTo } = chainOf(options);
    const app = express();
    app.disable("x-powered-by");
    app.use(
      x402({
        facilitator: facilitatorUrl ? { url: facilitatorUrl } : instantFacilitator,
        payTo,
        network,
        routes: cborFacilitatorUrl ? cborRoutes : routes,
        ...(redisUrl ? { ledger: redisLedger(redisUrl) } : {}),
        ...(cborFacilitatorUrl ? { cbor: cborSettings(cborFacilitatorUrl) } : {}),
      }),
    );
    app.get(ROUTE, answer);
    return serve(app);
  },

  /** The official `@x402/hono` middleware on a Hono app served by `@hono/node-server` (scenario 13). */
  "official-hono": async ({ facilitatorUrl }) => {
    const server = new x402ResourceServer(facilitatorClient(facilitatorUrl)).register(
      NETWORK,
      new ExactEvmScheme(),
    );
    return serveHono(officialHonoMiddleware(officialRoutes, server));
  },

  /** This project's `x402Hono()` on the same Hono app. */
  "x402-hono": async ({ facilitatorUrl, redisUrl }) =>
    serveHono(
      x402Hono({
        facilitator: facilitatorUrl ? { url: facilitatorUrl } : instantFacilitator,
        payTo: PAY_TO,
        network: NETWORK,
        routes,
        ...(redisUrl ? { ledger: redisLedger(redisUrl) } : {}),
      }),
    ),

  /** `x402-gateway serve`'s app in front of the upstream, with its access log, metrics and helmet on. */
  gateway: async (options) => {
    const {
      upstreamUrl = "http://127.0.0.1:9",
      log = "stdout",
      settleDelayMs,
      facilitatorUrl,
      redisUrl,
      cborFacilitatorUrl,
    } = options;
    const { network, payTo } = chainOf(options);
    const config = gatewayConfigSchema.parse({
      facilitator: { url: facilitatorUrl ?? "http://127.0.0.1:9" },
      ...(redisUrl ? { ledger: redisLedger(redisUrl) } : {}),
      ...(cborFacilitatorUrl ? { cbor: cborSettings(cborFacilitatorUrl) } : {}),
      payTo,
      network,
      routes: cborFacilitatorUrl ? cborRoutes : routes,
      listen: { host: "127.0.0.1", port: 0 },
      upstreams: [{ prefix: "/", url: upstreamUrl }],
      limits: { drainTimeoutMs: 0 },
    });
    const logger = log === "stdout" ? createGatewayLogger("info") : silent();
    const facilitator = settleDelayMs ? slowSettling(settleDelayMs) : instantFacilitator;
    const gateway = createGateway(config, {
      logger,
      ...(facilitatorUrl ? {} : { paywallOverrides: { facilitator } }),
    });
    const running = await gateway.listen();
    return { url: running.url, close: () => running.close() };
  },

  /** Floor: Express + http-proxy-middleware with a keep-alive agent, in front of the upstream. */
  "express-hpm": async ({ upstreamUrl = "http://127.0.0.1:9" }) => {
    const app = express();
    app.disable("x-powered-by");
    app.use(
      createProxyMiddleware({
        target: upstreamUrl,
        changeOrigin: true,
        agent: new Agent({ keepAlive: true }),
      }),
    );
    return serve(app);
  },
} satisfies Record<string, Start>;

export type ContenderName = keyof typeof contenders;

export function isContenderName(name: string): name is ContenderName {
  return Object.hasOwn(contenders, name);
}

/** One signed EIP-3009 authorization, as it travels in an exact payment's `payload`. */
export interface SignedPayload {
  signature: string;
  authorization: Record<string, string>;
}

/** One pre-signed official `@x402/svm` exact payload: a partially signed transaction (base64 wire bytes). */
export interface SignedSvmPayload {
  transaction: string;
}

/** The PAYMENT-SIGNATURE header for one pre-signed payload, against a contender's own offer. */
export function paymentHeader(
  offer: { resource?: unknown; accepts: PaymentRequirements[] },
  signed: SignedPayload | SignedSvmPayload,
): string {
  const accepted = offer.accepts[0];
  if (accepted === undefined) throw new Error("the offer lists no payment option");
  const payment: PaymentPayload = {
    x402Version: 2,
    ...(offer.resource === undefined ? {} : { resource: offer.resource as PaymentPayload["resource"] }),
    accepted,
    payload: signed as unknown as PaymentPayload["payload"],
  };
  return encodeBase64Json(payment);
}
