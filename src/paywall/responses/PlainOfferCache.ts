import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { EncodedPaymentRequired } from "./respond.js";
import type { RequestFacts } from "../request/RequestFacts.js";

type OfferedRequest = Pick<RequestFacts, "method" | "url" | "mountPath">;

/**
 * Encoded 402s of routes without a sign-in challenge, per route, method and resource URL (nothing else
 * in them varies; the method only fills a Bazaar declaration). The URL carries a client-chosen query, so each route keeps at most `maxPerRoute` and starts
 * over when full: a client churning queries costs an encode per request, never memory.
 */
export class PlainOfferCache {
  private readonly byRoute = new Map<PricedRoute, Map<string, EncodedPaymentRequired>>();

  constructor(
    private readonly encode: (
      route: PricedRoute,
      resourceUrl: string,
      req: OfferedRequest,
    ) => EncodedPaymentRequired,
    private readonly maxPerRoute = 256,
  ) {}

  get(route: PricedRoute, resourceUrl: string, req: OfferedRequest): EncodedPaymentRequired {
    let encoded = this.byRoute.get(route);
    if (encoded === undefined) {
      encoded = new Map();
      this.byRoute.set(route, encoded);
    }
    const key = `${req.method} ${resourceUrl}`;
    let answer = encoded.get(key);
    if (answer === undefined) {
      answer = this.encode(route, resourceUrl, req);
      if (encoded.size >= this.maxPerRoute) encoded.clear();
      encoded.set(key, answer);
    }
    return answer;
  }
}
