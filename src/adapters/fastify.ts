import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import { assemblePaymentFlow, type SupportReport } from "../paywall/setup/assemblePaymentFlow.js";
import type { PaywallOptions } from "../paywall/setup/options.js";
import type { PaywallRequestInfo } from "../paywall/flow/PaywallObserver.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import type { PricedRoute } from "../pricing/RouteTable.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";
import { nodeRequestFacts } from "./nodeRequestFacts.js";
import { nodeResponsePort } from "./nodeResponsePort.js";

/** `x402Fastify`'s options: a `requireTls` function is given Fastify's request (`protocol`, `ip` follow `trustProxy`). */
export type X402FastifyOptions = PaywallOptions<FastifyRequest>;

/** What the plugin decorates the instance with, as `app.x402`. */
export interface X402FastifyDecoration {
  readonly routes: readonly PricedRoute[];
  checkSupport(): Promise<SupportReport>;
  /**
   * Resolves once the start-up checks passed (`facilitatorSupport: "require"`; OpenAPI request-body schemas),
   * rejects with what failed; until then priced requests wait, then get `503 paywall_unavailable`.
   */
  ready(): Promise<void>;
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
  ledgerHealth(timeoutMs: number): Promise<LedgerHealth | undefined>;
  /** The outcome record of a priced request (route, outcome, payer…), for access logs. */
  infoOf(request: FastifyRequest): PaywallRequestInfo | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    x402: X402FastifyDecoration;
  }
}

/**
 * The x402 paywall as a Fastify plugin: `app.register(x402Fastify, { routes, facilitator, payTo })`. It
 * runs first on every request (an `onRequest` hook, not encapsulated): a priced request is answered (402,
 * refusals) or verified and let through with the reply held, its bytes kept until the payment has settled
 * on a 2xx; anything else is sent as it is and not settled. The options are checked at `register`.
 */
export const x402Fastify: FastifyPluginCallback<X402FastifyOptions> = (
  instance: FastifyInstance,
  options: X402FastifyOptions,
  done: (error?: Error) => void,
) => {
  const requests = new WeakMap<IncomingMessage, FastifyRequest>();
  let assembled: ReturnType<typeof assemblePaymentFlow>;
  try {
    assembled = assemblePaymentFlow(options, (raw) => requests.get(raw as IncomingMessage) as FastifyRequest);
  } catch (error) {
    // An invalid option: `register` (then `ready`/`listen`) rejects with it, naming the key.
    return done(error as Error);
  }
  const { flow, routes, checkSupport, close, revoke, ledgerHealth, ready } = assembled;
  const infos = new WeakMap<FastifyRequest, PaywallRequestInfo>();
  let checked = false;
  instance.decorate("x402", {
    routes,
    checkSupport,
    ready,
    revoke,
    ledgerHealth,
    infoOf: (request: FastifyRequest) => infos.get(request),
  } satisfies X402FastifyDecoration);
  instance.addHook("onClose", async () => close());
  // `facilitatorSupport: "require"`: `ready()`/`listen()` reject while the start-up checks fail.
  instance.addHook("onReady", async () => ready());
  instance.addHook("onRequest", (request, reply, next) => {
    if (!checked) {
      checked = true;
      void checkSupport();
    }
    requests.set(request.raw, request);
    const facts = nodeRequestFacts(request.raw, {
      protocol: () => request.protocol,
      clientAddress: () => request.ip,
    });
    let passed = false;
    void flow
      .handle(
        facts,
        nodeResponsePort(reply.raw),
        () => {
          passed = true;
          next();
        },
        (info) => infos.set(request, info),
      )
      .then(() => {
        // The flow answered on the raw response itself: Fastify must not send another.
        if (!passed) reply.hijack();
      });
  });
  done();
};

// Not encapsulated: the hook guards the routes of the instance it is registered on, as `fastify-plugin` does.
(x402Fastify as unknown as Record<symbol, boolean>)[Symbol.for("skip-override")] = true;
