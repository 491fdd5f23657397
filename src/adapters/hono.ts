import type { Context, MiddlewareHandler } from "hono";
import { fetchPaywall, type X402FetchHandler, type X402FetchOptions } from "./fetch.js";
import type { FetchConnection } from "./fetchRequestFacts.js";

/**
 * `x402Hono()`'s options: a `requireTls` function is given the `Request`. `connection` reads the request's
 * connection from Hono's context; by default `@hono/node-server`'s socket and request target, or the client
 * Bun's `requestIP` names.
 */
export type X402HonoOptions = Omit<X402FetchOptions, "connection"> & {
  connection?: ((c: Context) => FetchConnection | undefined) | undefined;
};

export type X402HonoMiddleware = MiddlewareHandler & Omit<X402FetchHandler, keyof CallableFunction>;

/** Where Node's (`@hono/node-server`) and Bun's servers tell a request's client address. */
interface RuntimeBindings {
  incoming?: { url?: string; socket?: FetchConnection; rawHeaders?: string[] };
  requestIP?: (request: Request) => { address?: string } | null;
}

function runtimeConnection(c: Context): FetchConnection | undefined {
  const env = c.env as RuntimeBindings | undefined;
  const incoming = env?.incoming;
  if (incoming?.socket !== undefined) {
    const { remoteAddress, localAddress, localPort } = incoming.socket;
    // The server's own lazy Headers (not one an earlier middleware put in its place) is read by the names received.
    const lazy = Object.getPrototypeOf(c.req.raw.headers) !== Headers.prototype;
    const rawHeaders = lazy ? incoming.rawHeaders : undefined;
    return { remoteAddress, localAddress, localPort, target: incoming.url, rawHeaders };
  }
  const client = env?.requestIP?.(c.req.raw)?.address;
  return client === undefined ? undefined : { remoteAddress: client };
}

/**
 * The x402 paywall as Hono middleware (`app.use(x402Hono({ routes, facilitator, payTo }))`): the Fetch
 * adapter around the rest of the app. A paid answer is read to its end and sent only once its payment has
 * settled; anything but a 2xx is passed on and not settled.
 */
export function x402Hono(options: X402HonoOptions): X402HonoMiddleware {
  const { connection = runtimeConnection, ...paywallOptions } = options;
  const { handle, ...paywall } = fetchPaywall(paywallOptions);
  const middleware: MiddlewareHandler = async (c, next) => {
    const request = c.req.raw;
    const handOn = async (handedOn: Request) => {
      // The flow rewrote the request (a dropped content type, a CBOR retry served as GET): the app reads that.
      if (handedOn !== request) c.req.raw = handedOn;
      await next();
      return c.res;
    };
    const response = await handle(request, handOn, connection(c));
    // Unset first: Hono's setter would copy the handler's headers back over the paid answer's own.
    c.res = undefined;
    c.res = response;
  };
  const { routes, checkSupport, close, revoke, infoOf, ledgerHealth, ready } = paywall;
  return Object.assign(middleware, { routes, checkSupport, close, revoke, infoOf, ledgerHealth, ready });
}
