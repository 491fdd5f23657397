import type { RouteRequestContext } from "../../pricing/routeFunctions.js";
import { PAYMENT_SIGNATURE } from "../../protocol/headers.js";
import type { Exchange } from "../flow/Exchange.js";
import { headerOf, splitUrl } from "./requestParts.js";

/**
 * The request as a route function (`price`, `payTo`, the response bodies) reads it, in the official
 * `HTTPRequestContext` shape: the priced path, the query, the headers, and Express's parsed `req.body` when
 * a body parser ran first. Built per call: nothing of it outlives the request.
 */
export function routeRequestContext(exchange: Exchange): RouteRequestContext {
  const { req, route, resourceUrl } = exchange;
  const { pathname, search } = splitUrl(req.url);
  let query: URLSearchParams | undefined;
  const params = () => (query ??= new URLSearchParams(search));
  return {
    adapter: {
      getHeader: (name) => headerOf(req, name.toLowerCase()),
      getMethod: () => req.method,
      getPath: () => pathname,
      getUrl: () => resourceUrl,
      getAcceptHeader: () => headerOf(req, "accept") ?? "",
      getUserAgent: () => headerOf(req, "user-agent") ?? "",
      // fromEntries defines own properties: a client's `?__proto__=a&__proto__=b` cannot set the prototype.
      getQueryParams: () =>
        Object.fromEntries(
          [...new Set(params().keys())].map((name) => [name, valueOf(params().getAll(name))]),
        ),
      getQueryParam: (name) => {
        const values = params().getAll(name);
        return values.length === 0 ? undefined : valueOf(values);
      },
      getBody: () => req.parsedBody,
    },
    path: pathname,
    method: req.method,
    paymentHeader: headerOf(req, PAYMENT_SIGNATURE),
    routePattern: route.key,
  };
}

const valueOf = (values: string[]): string | string[] =>
  values.length === 1 ? (values[0] as string) : values;
