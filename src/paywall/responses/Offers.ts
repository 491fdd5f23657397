import { isLoopbackHost } from "../../common/isLoopbackHost.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { SignInContext, SignInGate } from "../../recognition/SignInGate.js";
import type { PaymentRequirements, ResourceInfo } from "../../protocol/schemas.js";
import type { Offer } from "./respond.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import { enrichBazaar } from "./enrichBazaar.js";
import { headerOf } from "../request/requestParts.js";

export interface OffersDeps {
  publicUrl?: string | undefined;
  /** Hosts (`api.example.com`, or with a port) a request's `Host` may name; the first is the default. */
  allowedHosts?: readonly string[] | undefined;
  signInGateFor: (route: PricedRoute) => SignInGate | undefined;
  now: () => number;
  /** The pass a route sells, as its offer's `extensions.pass`. */
  passes?: { offerExtension(route: PricedRoute): Record<string, unknown> | undefined } | undefined;
}

/** What a priced route offers a request: the resource it names, the payment options, the sign-in challenge. */
export class Offers {
  /** `publicUrl` without its trailing slashes, once. */
  private readonly publicBase: string | undefined;

  constructor(private readonly deps: OffersDeps) {
    this.publicBase = deps.publicUrl ? deps.publicUrl.replace(/\/+$/, "") : undefined;
  }

  resourceUrl(req: RequestFacts, pathAndQuery: string): string {
    const base = this.publicBase ?? `${req.protocol}://${this.servedHost(req)}`;
    return `${base}${req.mountPath}${pathAndQuery}`;
  }

  /**
   * The host this request is served as, never an arbitrary `Host` off loopback: an allowed host, else the
   * first allowed host; without `allowedHosts`, the `Host` only on a loopback listener, else the listener's address.
   */
  private servedHost(req: RequestFacts): string {
    const host = headerOf(req, "host") ?? "";
    const allowed = this.deps.allowedHosts ?? [];
    if (allowed.length > 0) {
      const name = host.replace(/:\d+$/, "").toLowerCase();
      const match = allowed.some((entry) => [host.toLowerCase(), name].includes(entry.toLowerCase()));
      return match ? host : (allowed[0] as string);
    }
    const local = req.localAddress;
    if (host !== "" && isLoopbackHost(local)) return host;
    const address = local.includes(":") ? `[${local}]` : local;
    return `${address || "localhost"}:${req.localPort}`;
  }

  /**
   * The offer without a sign-in challenge: the same for every request of this route, method and resource
   * (`req.url` is the priced path and query the resource URL names), unless the route's options are
   * computed per request (`accepts`).
   */
  plain(
    route: PricedRoute,
    resourceUrl: string,
    req: Pick<RequestFacts, "method" | "url" | "mountPath">,
    accepts: PaymentRequirements[] = route.requirements,
  ): Offer {
    const { config } = route;
    const resource: ResourceInfo = {
      url: config.resource ?? resourceUrl,
      description: config.description ?? "",
      mimeType: config.mimeType ?? "application/json",
    };
    if (config.serviceName !== undefined) resource.serviceName = config.serviceName;
    if (config.tags !== undefined) resource.tags = config.tags;
    if (config.iconUrl !== undefined) resource.iconUrl = config.iconUrl;
    const offer: Offer = { resource, accepts };
    if (config.extensions !== undefined) offer.extensions = { ...config.extensions };
    const pass = this.deps.passes?.offerExtension(route);
    if (pass !== undefined) offer.extensions = { ...offer.extensions, ...pass };
    if (route.bazaar !== undefined) {
      const path = req.url.split("?")[0] ?? "/";
      const bazaar = enrichBazaar(route.bazaar, {
        method: req.method.toUpperCase(),
        path,
        mountPath: req.mountPath,
      });
      const { bazaar: _declared, ...others } = offer.extensions ?? {};
      offer.extensions = bazaar === undefined ? others : { ...others, bazaar };
    }
    return offer;
  }

  async offer(
    req: RequestFacts,
    route: PricedRoute,
    resourceUrl: string,
    accepts: PaymentRequirements[],
  ): Promise<Offer> {
    const offer = this.plain(route, resourceUrl, req, accepts);
    const gate = this.deps.signInGateFor(route);
    if (gate)
      offer.extensions = {
        ...offer.extensions,
        ...(await gate.offer(this.signInContext(req, route, resourceUrl))),
      };
    return offer;
  }

  signInContext(req: RequestFacts, route: PricedRoute, resourceUrl: string): SignInContext {
    const host = this.deps.publicUrl ? new URL(this.deps.publicUrl).host : this.servedHost(req);
    return {
      resourceUrl,
      host,
      networks: [...new Set(route.requirements.map((requirements) => requirements.network))],
      now: new Date(this.deps.now()),
    };
  }
}
