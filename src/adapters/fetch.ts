import type { PaywallOptions } from "../paywall/setup/options.js";
import type { PaywallRequestInfo } from "../paywall/flow/PaywallObserver.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import { assemblePaymentFlow, type SupportReport } from "../paywall/setup/assemblePaymentFlow.js";
import type { PricedRoute } from "../pricing/RouteTable.js";
import type { RevocationRequest } from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";
import { fetchRequestFacts, type ConnectionOf, type FetchConnection } from "./fetchRequestFacts.js";
import { FetchResponsePort } from "./FetchResponsePort.js";

/**
 * The paywall's options on Web-standard `Request`/`Response`: a `requireTls` function is given the
 * `Request`. The runtime, not the `Request`, knows the connection: `connection` reads it (the client's
 * address for `requireTls: "except-loopback"`, the default; the listener's for the host an offer names).
 * Without it the client is never taken for loopback: set `requireTls` and `publicUrl` (or `allowedHosts`).
 */
export type X402FetchOptions = PaywallOptions<Request> & {
  /** The connection of a request, as the runtime tells it (`undefined` when it cannot). */
  connection?: ConnectionOf | undefined;
};

/** The handler the paywall guards: the rest of the app, given the request to serve. */
export type FetchNext = (request: Request) => Promise<Response>;

export type X402FetchHandler = ((request: Request, next: FetchNext) => Promise<Response>) & {
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
  /** The outcome record of a priced request (route, outcome, payer…), for access logs. */
  infoOf(request: Request): PaywallRequestInfo | undefined;
  ledgerHealth(timeoutMs: number): Promise<LedgerHealth | undefined>;
};

/**
 * The same paywall as `x402()` on Web-standard `Request`/`Response` (Next.js route handlers and middleware,
 * Bun, Deno, Workers, Hono): `paywall(request, next)` answers a priced request itself (402, refusals) or
 * calls `next` and settles only when its `Response` is a 2xx, read to its end (up to `maxHeldResponseBytes`)
 * before anything of it leaves. Offers name the resource at the request URL's origin only when it is an
 * address: set `publicUrl` (or `allowedHosts`) where the app has a name.
 */
export function x402Fetch(options: X402FetchOptions): X402FetchHandler {
  const { connection, ...paywall } = options;
  const { handle, ...parts } = fetchPaywall(paywall);
  return Object.assign(
    (request: Request, next: FetchNext) => handle(request, next, connection?.(request)),
    parts,
  );
}

/**
 * {@link x402Fetch}'s paywall, given each request's connection by the caller (the Hono adapter reads it from its
 * context). @internal: for this package's adapters.
 */
export function fetchPaywall(options: PaywallOptions<Request>) {
  const { flow, routes, checkSupport, close, revoke, ledgerHealth, ready } = assemblePaymentFlow(
    options,
    (req) => req as Request,
  );
  const infos = new WeakMap<Request, PaywallRequestInfo>();
  let checked = false;
  const handle = async (
    request: Request,
    next: FetchNext,
    connection: FetchConnection | undefined,
  ): Promise<Response> => {
    if (!checked) {
      checked = true;
      void checkSupport();
    }
    const facts = fetchRequestFacts(request, connection);
    const port = new FetchResponsePort(request, facts);
    await flow.handle(
      facts,
      port,
      () => port.handOn(Promise.resolve().then(() => next(facts.handedOn()))),
      (info) => infos.set(request, info),
    );
    return port.answer();
  };
  return {
    handle,
    routes,
    checkSupport,
    ready,
    close,
    revoke,
    infoOf: (request: Request) => infos.get(request),
    ledgerHealth,
  };
}
