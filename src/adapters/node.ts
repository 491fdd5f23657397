import type { IncomingMessage, ServerResponse } from "node:http";
import type { PaywallOptions } from "../paywall/setup/options.js";
import type { PaywallRequestInfo } from "../paywall/flow/PaywallObserver.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import { nodeRequestFacts } from "./nodeRequestFacts.js";
import { nodeResponsePort } from "./nodeResponsePort.js";
import type { RequestFacts } from "../paywall/request/RequestFacts.js";
import { assemblePaymentFlow, type SupportReport } from "../paywall/setup/assemblePaymentFlow.js";
import type { PricedRoute } from "../pricing/RouteTable.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";

/** The paywall's options for plain `node:http`: a `requireTls` function is given Node's request. */
export type X402NodeOptions = PaywallOptions<IncomingMessage>;

/** Connect-style: call `next` to serve the request (free, recognised, or paid and held until settled). */
export type X402NodeHandler = ((
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
) => Promise<void>) & {
  readonly routes: readonly PricedRoute[];
  checkSupport(): Promise<SupportReport>;
  /**
   * Resolves once the start-up checks passed (`facilitatorSupport: "require"`; OpenAPI request-body schemas),
   * rejects with what failed; until then priced requests wait, then get `503 paywall_unavailable`.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
  /** Revoke a payer's recognition (a refund): see `x402().revoke`. */
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
  /** A `node:http` request listener: the paywall in front of `handler`. */
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  /** The outcome record of a priced request (route, outcome, payer…), for access logs. */
  infoOf(res: ServerResponse): PaywallRequestInfo | undefined;
  /** The ledger's health check within `timeoutMs` (readiness); undefined for a ledger in memory. */
  ledgerHealth(timeoutMs: number): Promise<LedgerHealth | undefined>;
};

/**
 * The same paywall as `x402()` without Express, for `node:http`/`node:https` servers: the client's
 * address and TLS are read from the socket (no proxy headers are trusted), and offers name the
 * resource at the server's root (set `publicUrl` when it is mounted elsewhere).
 */
export function x402Node(options: X402NodeOptions): X402NodeHandler {
  return nodePaywall(options, nodeRequestFacts);
}

/**
 * {@link x402Node} reading each request through `factsOf`: how a server that trusts a proxy's
 * `X-Forwarded-*` (the gateway) gives the flow the client's address and protocol.
 */
export function nodePaywall(
  options: X402NodeOptions,
  factsOf: (req: IncomingMessage) => RequestFacts,
): X402NodeHandler {
  const { flow, routes, checkSupport, close, revoke, ledgerHealth, ready } = assemblePaymentFlow(
    options,
    (req) => req as IncomingMessage,
  );
  const infos = new WeakMap<ServerResponse, PaywallRequestInfo>();
  let checked = false;
  const handle = (req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> => {
    if (!checked) {
      checked = true;
      void checkSupport();
    }
    return flow.handle(factsOf(req), nodeResponsePort(res), next, (info) => infos.set(res, info));
  };
  const wrap =
    (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
    (req: IncomingMessage, res: ServerResponse): void =>
      void handle(req, res, () => handler(req, res));
  return Object.assign(handle, {
    routes,
    checkSupport,
    ready,
    close,
    revoke,
    wrap,
    infoOf: (res: ServerResponse) => infos.get(res),
    ledgerHealth,
  });
}
