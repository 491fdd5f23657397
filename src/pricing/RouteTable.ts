import type { PaymentRequirements } from "../protocol/schemas.js";
import type { RouteConfig } from "../middleware/options.js";
import { compileRoutePattern, type RoutePattern } from "./compileRoutePattern.js";
import { normalizePath, type PathRejection } from "./normalizePath.js";
import { RouteIndex } from "./RouteIndex.js";
import { resolvePaymentOptions, type PricingDefaults } from "./resolvePaymentOptions.js";

/** A priced route, compiled once at start-up. */
export interface PricedRoute {
  key: string;
  pattern: RoutePattern;
  config: RouteConfig;
  /** What the 402 offer lists, in order; also what a payment is matched against. */
  requirements: PaymentRequirements[];
  settle: "after" | "before";
}

export type RouteMatch =
  | { kind: "free" }
  | { kind: "invalid"; reason: PathRejection }
  | { kind: "priced"; route: PricedRoute; path: string };

export class RouteConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`routes[${JSON.stringify(key)}].${message}`);
    this.name = "RouteConfigError";
  }
}

/** The route table: which requests cost what. Pure; matching looks only at routes whose literals fit the path. */
export class RouteTable {
  readonly routes: readonly PricedRoute[];

  constructor(routes: Record<string, RouteConfig>, defaults: PricingDefaults) {
    const compiled: PricedRoute[] = [];
    for (const [key, config] of Object.entries(routes)) {
      let pattern: RoutePattern;
      try {
        pattern = compileRoutePattern(key);
      } catch (error) {
        throw new RouteConfigError(key, `key: ${(error as Error).message}`);
      }
      let requirements: PaymentRequirements[];
      try {
        requirements = resolvePaymentOptions(config, defaults);
      } catch (error) {
        throw new RouteConfigError(key, (error as Error).message);
      }
      compiled.push({ key, pattern, config, requirements, settle: config.settle ?? "after" });
    }
    // Most specific first; declaration order breaks ties (sort is stable).
    this.routes = compiled.sort((a, b) => b.pattern.specificity - a.pattern.specificity);
    this.index = new RouteIndex(this.routes.map((route) => ({ pattern: route.pattern, value: route })));
  }

  private readonly index: RouteIndex<PricedRoute>;

  /**
   * Match a request. A path that cannot be normalised is `invalid` only if some reading of it would
   * reach a priced route; otherwise it is none of the paywall's business and stays `free`.
   */
  match(method: string, rawPath: string): RouteMatch {
    const upper = method.toUpperCase();
    const normalized = normalizePath(rawPath);
    if (!normalized.ok) {
      const lenient = normalizePath(
        rawPath
          .replace(/%(2f|5c)/gi, "/")
          .replace(/\\/g, "/")
          .replace(/%(?![0-9a-fA-F]{2})/g, "%25"),
      );
      if (lenient.ok && this.find(upper, lenient.path)) return { kind: "invalid", reason: normalized.reason };
      return { kind: "free" };
    }
    return this.matchNormalized(upper, normalized.path);
  }

  /** Match a path already normalised by {@link normalizePath} (the gateway does it once per request). */
  matchNormalized(method: string, path: string): RouteMatch {
    const route = this.find(method.toUpperCase(), path);
    return route ? { kind: "priced", route, path } : { kind: "free" };
  }

  private find(method: string, path: string): PricedRoute | undefined {
    if (this.routes.length === 0) return undefined;
    const segments = path === "/" ? [] : path.slice(1).toLowerCase().split("/");
    return this.index.find(method, segments);
  }
}
