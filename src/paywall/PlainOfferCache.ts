import type { PricedRoute } from "../pricing/RouteTable.js";
import type { EncodedPaymentRequired } from "./respond.js";

/**
 * Encoded 402s of routes without a sign-in challenge, per route and resource URL (nothing else in them
 * varies). The URL carries a client-chosen query, so each route keeps at most `maxPerRoute` and starts
 * over when full: a client churning queries costs an encode per request, never memory.
 */
export class PlainOfferCache {
  private readonly byRoute = new Map<PricedRoute, Map<string, EncodedPaymentRequired>>();

  constructor(
    private readonly encode: (route: PricedRoute, resourceUrl: string) => EncodedPaymentRequired,
    private readonly maxPerRoute = 256,
  ) {}

  get(route: PricedRoute, resourceUrl: string): EncodedPaymentRequired {
    let encoded = this.byRoute.get(route);
    if (encoded === undefined) {
      encoded = new Map();
      this.byRoute.set(route, encoded);
    }
    let answer = encoded.get(resourceUrl);
    if (answer === undefined) {
      answer = this.encode(route, resourceUrl);
      if (encoded.size >= this.maxPerRoute) encoded.clear();
      encoded.set(resourceUrl, answer);
    }
    return answer;
  }
}
