import type { PaymentRequirements } from "../protocol/schemas.js";
import type { RouteConfig } from "../middleware/options.js";
import { CBOR_DEFAULTS } from "../middleware/cborOptions.js";
import { compileRoutePattern, patternMatches, type RoutePattern } from "./compileRoutePattern.js";
import { lenientReadings } from "./lenientReadings.js";
import { normalizePath, type PathRejection } from "./normalizePath.js";
import { resolveCborOffer, type CborPricingDefaults, type CborRouteOffer } from "./resolveCborOffer.js";
import { resolvePaymentOptions, type PricingDefaults } from "./resolvePaymentOptions.js";
import { BaseError } from "../common/BaseError.js";

/** A priced route, compiled once at start-up. */
export interface PricedRoute {
  key: string;
  pattern: RoutePattern;
  config: RouteConfig;
  /** What the 402 offer lists, in order; also what a payment is matched against. */
  requirements: PaymentRequirements[];
  settle: "after" | "before";
  /** The route's `application/x402+cbor` offer, when it has one. */
  cbor?: CborRouteOffer | undefined;
}

export type RouteMatch =
  | { kind: "free" }
  | { kind: "invalid"; reason: PathRejection }
  | { kind: "priced"; route: PricedRoute; path: string };

export class RouteConfigError extends BaseError {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super("invalid_route", `routes[${JSON.stringify(key)}].${message}`, { details: { key } });
  }
}

const CBOR_PRICING_DEFAULTS: CborPricingDefaults = { deadlineSeconds: CBOR_DEFAULTS.deadlineSeconds };

/** The route table: which requests cost what. Pure; matching is linear in the number of routes. */
export class RouteTable {
  readonly routes: readonly PricedRoute[];

  constructor(
    routes: Record<string, RouteConfig>,
    defaults: PricingDefaults & { cbor?: CborPricingDefaults | undefined },
  ) {
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
      let cbor: CborRouteOffer | undefined;
      try {
        cbor = config.cbor && resolveCborOffer(key, config.cbor, defaults.cbor ?? CBOR_PRICING_DEFAULTS);
      } catch (error) {
        throw new RouteConfigError(key, (error as Error).message);
      }
      compiled.push({ key, pattern, config, requirements, settle: config.settle ?? "after", cbor });
    }
    // Most specific first; declaration order breaks ties (sort is stable).
    this.routes = compiled.sort((a, b) => b.pattern.specificity - a.pattern.specificity);
    this.firstSegments = firstSegmentsOf(this.routes);
  }

  /** First path segments some route can match; undefined when a route starts with a param or a bare `*`. */
  private readonly firstSegments: ReadonlySet<string> | undefined;

  /**
   * Match a request. A path that cannot be normalised is `invalid` only if some reading of it would
   * reach a priced route; otherwise it is none of the paywall's business and stays `free`. With
   * `refuseLenientReadings`, a path that a lenient server could read as a different priced route
   * (see {@link lenientReadings}) is `invalid` too, since the paywall cannot know how its upstream reads it.
   */
  match(method: string, rawPath: string, options: { refuseLenientReadings?: boolean } = {}): RouteMatch {
    const upper = method.toUpperCase();
    const normalized = normalizePath(rawPath);
    const route = normalized.ok ? this.find(upper, normalized.path) : undefined;
    if (!normalized.ok || options.refuseLenientReadings) {
      const reason: PathRejection = normalized.ok ? "lenient_reading" : normalized.reason;
      const readings = lenientReadings(rawPath);
      if (readings === undefined) return { kind: "invalid", reason: "too_many_readings" };
      for (const reading of readings) {
        const path = readingPath(reading);
        const other = path === undefined ? undefined : this.find(upper, path);
        if (other !== undefined && other !== route) return { kind: "invalid", reason };
      }
    }
    if (!normalized.ok || !route) return { kind: "free" };
    return { kind: "priced", route, path: normalized.path };
  }

  private find(method: string, path: string): PricedRoute | undefined {
    if (this.routes.length === 0) return undefined;
    if (this.firstSegments) {
      const end = path.indexOf("/", 1);
      const first = path.slice(1, end === -1 ? undefined : end).toLowerCase();
      if (!this.firstSegments.has(first)) return undefined;
    }
    const segments = path === "/" ? [] : path.slice(1).toLowerCase().split("/");
    return this.routes.find((route) => patternMatches(route.pattern, method, segments));
  }
}

/** How a lenient server would resolve a reading: encoded and back slashes as separators, lone `%` literal. */
function readingPath(reading: string): string | undefined {
  const normalized = normalizePath(
    reading
      .replace(/%(2f|5c)/gi, "/")
      .replace(/\\/g, "/")
      .replace(/%(?![0-9a-fA-F]{2})/g, "%25"),
  );
  return normalized.ok ? normalized.path : undefined;
}

function firstSegmentsOf(routes: readonly PricedRoute[]): ReadonlySet<string> | undefined {
  const firsts = new Set<string>();
  for (const { pattern } of routes) {
    const first = pattern.segments[0];
    if (first === null || (first === undefined && pattern.wildcard)) return undefined;
    firsts.add(first ?? "");
  }
  return firsts;
}
