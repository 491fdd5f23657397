import type { Request } from "express";
import type { PricedRoute } from "../pricing/RouteTable.js";
import type { SignInContext, SignInGate } from "../recognition/SignInGate.js";
import type { Offer } from "./respond.js";

export interface OffersDeps {
  publicUrl?: string | undefined;
  signInGateFor: (route: PricedRoute) => SignInGate | undefined;
  now: () => number;
}

/** What a priced route offers a request: the resource it names, the payment options, the sign-in challenge. */
export class Offers {
  constructor(private readonly deps: OffersDeps) {}

  resourceUrl(req: Request, pathAndQuery: string): string {
    const base = this.deps.publicUrl
      ? this.deps.publicUrl.replace(/\/+$/, "")
      : `${req.protocol}://${req.get("host") ?? "localhost"}`;
    return `${base}${req.baseUrl}${pathAndQuery}`;
  }

  async offer(req: Request, route: PricedRoute, resourceUrl: string): Promise<Offer> {
    const resource = {
      url: resourceUrl,
      description: route.config.description ?? "",
      mimeType: route.config.mimeType ?? "application/json",
    };
    const offer: Offer = { resource, accepts: route.requirements };
    const gate = this.deps.signInGateFor(route);
    if (gate) offer.extensions = await gate.offer(this.signInContext(req, route, resourceUrl));
    return offer;
  }

  signInContext(req: Request, route: PricedRoute, resourceUrl: string): SignInContext {
    const host = this.deps.publicUrl ? new URL(this.deps.publicUrl).host : (req.get("host") ?? "");
    return {
      resourceUrl,
      host,
      networks: [...new Set(route.requirements.map((requirements) => requirements.network))],
      now: new Date(this.deps.now()),
    };
  }
}
