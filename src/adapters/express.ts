import type { Request, RequestHandler } from "express";
import type { PricedRoute } from "../pricing/RouteTable.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";
import { assemblePaymentFlow, type SupportReport } from "../paywall/setup/assemblePaymentFlow.js";
import { expressRequestFacts } from "./expressRequestFacts.js";
import { nodeResponsePort } from "./nodeResponsePort.js";
import type { PaywallOptions } from "../paywall/setup/options.js";

/** `x402()`'s options: a `requireTls` function is given Express's request (its `secure` and `ip` follow `trust proxy`). */
export type X402Options = PaywallOptions<Request>;

export type X402Middleware = RequestHandler & {
  /** The compiled route table. */
  readonly routes: readonly PricedRoute[];
  /** Ask the facilitator's `/supported` (once; later calls share the answer) and report unsupported routes. */
  checkSupport(): Promise<SupportReport>;
  /**
   * Resolves once the start-up checks passed (`facilitatorSupport: "require"`; OpenAPI request-body schemas),
   * rejects with what failed; until then priced requests wait, then get `503 paywall_unavailable`.
   */
  ready(): Promise<void>;
  /** Close what `x402()` opened itself (a Redis ledger's connection). */
  close(): Promise<void>;
  /**
   * Revoke a payer's recognition (its payment was refunded): dropped from every recognition cache here
   * at once and denied sign-in for `revocation.holdMs`; with a Redis ledger, shared with every instance
   * before this resolves. Rejects with a GatewayError `invalid_revocation` (bad input) or
   * `revocation_unavailable` (Redis could not take it; the payer is denied on this instance only).
   */
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
};

/**
 * The x402 V2 paywall as Express middleware: priced routes answer 402 with an offer until a payment
 * arrives, which is verified, held against the handler's answer and settled only on a 2xx.
 * Throws {@link X402OptionsError} at start-up for any invalid option.
 */
export function x402(options: X402Options): X402Middleware {
  const { flow, routes, checkSupport, close, revoke, ready } = assemblePaymentFlow(
    options,
    (req) => req as Request,
  );
  let checked = false;
  const middleware: RequestHandler = (req, res, next) => {
    if (!checked) {
      checked = true;
      void checkSupport();
    }
    return flow.handle(
      expressRequestFacts(req),
      nodeResponsePort(res),
      next,
      (info) => (res.locals.x402 = info),
    );
  };
  return Object.assign(middleware, { routes, checkSupport, close, revoke, ready });
}
