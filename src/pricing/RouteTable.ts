import type { PaymentRequirements } from "../protocol/schemas.js";
import type { RouteConfig } from "./routeSettings.js";
import { CBOR_DEFAULTS } from "./cborRouteSettings.js";
import { compileRouteBazaar, type RouteBazaar } from "./compileRouteBazaar.js";
import { compileRoutePattern, type RoutePattern } from "./compileRoutePattern.js";
import { lenientReadings } from "./lenientReadings.js";
import { normalizePath, type NormalizedPath, type PathRejection } from "./normalizePath.js";
import { resolveCborOffer, type CborPricingDefaults, type CborRouteOffer } from "./resolveCborOffer.js";
import { RouteIndex } from "./RouteIndex.js";
import {
  resolvePaymentOptions,
  type PricingDefaults,
  type ResolvedOptions,
} from "./resolvePaymentOptions.js";
import type { RouteRequestContext } from "./routeFunctions.js";
import { BaseError } from "../common/BaseError.js";
import { compileBodyValidator, type BodyValidator } from "./compileBodyValidator.js";

/** A priced route, compiled once at start-up. */
export interface PricedRoute {
  key: string;
  pattern: RoutePattern;
  config: RouteConfig;
  /**
   * What the 402 offer lists, in order; also what a payment is matched against. With {@link dynamic}, a
   * template (scheme, network, timeout) whose computed fields are `""`: never offered nor matched.
   */
  requirements: PaymentRequirements[];
  /** For a route whose `price` or `payTo` is a function (code only): this request's requirements. */
  dynamic?: ((context: RouteRequestContext) => Promise<PaymentRequirements[]>) | undefined;
  settle: "after" | "before";
  /** The route's `application/x402+cbor` offer, when it has one. */
  cbor?: CborRouteOffer | undefined;
  /** The route's Bazaar discovery declaration (JSON offers' `extensions.bazaar`), when it has one. */
  bazaar?: RouteBazaar | undefined;
  /** The route's `requestBody` check: what a JSON body must fit before anything is offered or reserved. */
  validateBody?: BodyValidator | undefined;
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

/** The route table: which requests cost what. Pure; matching looks only at routes whose literals fit the path. */

export interface MatchOptions {
  /** Refuse a path a lenient server could read as another priced route (see {@link lenientReadings}). */
  refuseLenientReadings?: boolean | undefined;
  /** With {@link RouteTable.matchNormalized}: the path as the client wrote it, for the readings every server makes of it. */
  rawPath?: string | undefined;
}

export class RouteTable {
  readonly routes: readonly PricedRoute[];

  constructor(
    routes: Record<string, RouteConfig>,
    defaults: PricingDefaults & {
      cbor?: CborPricingDefaults | undefined;
      /** Match literal path segments case-sensitively (the resource behind routes that way). Default false. */
      caseSensitivePaths?: boolean | undefined;
    },
  ) {
    this.caseSensitive = defaults.caseSensitivePaths ?? false;
    const compiled: PricedRoute[] = [];
    for (const [key, config] of Object.entries(routes)) {
      let pattern: RoutePattern;
      try {
        pattern = compileRoutePattern(key, { caseSensitive: this.caseSensitive });
      } catch (error) {
        throw new RouteConfigError(key, `key: ${(error as Error).message}`);
      }
      let options: ResolvedOptions;
      try {
        options = resolvePaymentOptions(config, defaults);
      } catch (error) {
        throw new RouteConfigError(key, (error as Error).message);
      }
      let cbor: CborRouteOffer | undefined;
      try {
        cbor = config.cbor && resolveCborOffer(key, config.cbor, defaults.cbor ?? CBOR_PRICING_DEFAULTS);
      } catch (error) {
        throw new RouteConfigError(key, (error as Error).message);
      }
      let bazaar: RouteBazaar | undefined;
      try {
        bazaar = compileRouteBazaar(key, pattern, config);
      } catch (error) {
        throw new RouteConfigError(key, (error as Error).message);
      }
      const validateBody = bodyValidatorOf(key, config);
      const { requirements, dynamic } = options;
      compiled.push({
        key,
        pattern,
        config,
        requirements,
        dynamic,
        settle: config.settle ?? "after",
        cbor,
        bazaar,
        validateBody,
      });
    }
    // Most specific first; declaration order breaks ties (sort is stable).
    this.routes = compiled.sort((a, b) => b.pattern.specificity - a.pattern.specificity);
    this.index = new RouteIndex(this.routes.map((route) => ({ pattern: route.pattern, value: route })));
    if (this.caseSensitive) {
      this.folded = new RouteIndex(
        this.routes.map((route) => ({ pattern: compileRoutePattern(route.key), value: route })),
      );
    }
  }

  private readonly index: RouteIndex<PricedRoute>;
  /** Under case-sensitive matching, the same routes matched in any case: a case variant of a priced path is refused, never free. */
  private readonly folded: RouteIndex<PricedRoute> | undefined;
  private readonly caseSensitive: boolean;

  /**
   * Match a request. A path that cannot be normalised is `invalid` only if some reading of it would
   * reach a priced route; otherwise it is none of the paywall's business and stays `free`. With
   * `refuseLenientReadings`, a path that a lenient server could read as a different priced route
   * (see {@link lenientReadings}) is `invalid` too, since the paywall cannot know how its upstream reads it.
   */
  match(method: string, rawPath: string, options: MatchOptions = {}): RouteMatch {
    return this.remembered("m", method.toUpperCase(), rawPath, options);
  }

  /** {@link match} for a path already normalised by {@link normalizePath} (the gateway does it once per request). */
  matchNormalized(method: string, path: string, options: MatchOptions = {}): RouteMatch {
    return this.remembered("n", method.toUpperCase(), path, options);
  }

  /**
   * The last {@link MEMO_ENTRIES} answers, by everything an answer depends on (the table never changes):
   * a path asked again (a client's retry with its payment, a popular route) is priced without its readings
   * being worked out again. Oldest out first; a flood of distinct paths only costs what matching costs.
   * Kept by kind, leniency and whether a raw path was given ({@link memoShelf}), then by method, then by
   * path (with the raw path): no key is built from the parts per request.
   */
  private readonly memo: Array<Map<string, Map<string, RouteMatch>>> = Array.from(
    { length: 8 },
    () => new Map(),
  );
  /** Where each kept answer is, oldest first: a ring of {@link MEMO_ENTRIES}; the next to go at `memoNext`. */
  private readonly memoOrder: Array<{
    byMethod: Map<string, Map<string, RouteMatch>>;
    upper: string;
    key: string;
  }> = [];
  private memoNext = 0;

  /** The memo's answer for `path` (`n`: already normalised; `m`: as written), worked out and kept on a miss. */
  private remembered(kind: "m" | "n", upper: string, path: string, options: MatchOptions): RouteMatch {
    const raw = options.rawPath;
    if (path.length > MEMO_MAX_PATH || (raw !== undefined && raw.length > MEMO_MAX_PATH))
      return this.fresh(kind, upper, path, options);
    const byMethod = this.memo[memoShelf(kind, options)] as Map<string, Map<string, RouteMatch>>;
    // With a raw path: lengths before the variable parts, so that no two (path, raw path) pairs share a key.
    const key = raw === undefined ? path : `${path.length}:${path}${raw}`;
    let byPath = byMethod.get(upper);
    const known = byPath?.get(key);
    if (known !== undefined) return known;
    const match = this.fresh(kind, upper, path, options);
    if (byPath === undefined) {
      byPath = new Map();
      byMethod.set(upper, byPath);
    }
    if (this.memoOrder.length === MEMO_ENTRIES) this.forgetOldest();
    byPath.set(key, match);
    this.memoOrder[this.memoNext] = { byMethod, upper, key };
    this.memoNext = (this.memoNext + 1) % MEMO_ENTRIES;
    return match;
  }

  /** The answer worked out anew (`n`: the path is already normalised). */
  private fresh(kind: "m" | "n", upper: string, path: string, options: MatchOptions): RouteMatch {
    return this.matchReading(upper, path, kind === "n" ? { ok: true, path } : normalizePath(path), options);
  }

  /** Drops the oldest kept answer (and its method's map once empty: methods are the client's to choose). */
  private forgetOldest(): void {
    const oldest = this.memoOrder[this.memoNext];
    if (oldest === undefined) return;
    const byPath = oldest.byMethod.get(oldest.upper);
    byPath?.delete(oldest.key);
    if (byPath?.size === 0) oldest.byMethod.delete(oldest.upper);
  }

  private matchReading(
    upper: string,
    rawPath: string,
    normalized: NormalizedPath,
    options: MatchOptions,
  ): RouteMatch {
    const route = normalized.ok ? this.find(upper, normalized.path) : undefined;
    const differs = (path: string | undefined) => {
      const other = path === undefined ? undefined : this.find(upper, path);
      return other !== undefined && other !== route;
    };
    if (normalized.ok && route === undefined && this.folded !== undefined) {
      if (this.folded.find(upper, segmentsOf(normalized.path, false)) !== undefined)
        return { kind: "invalid", reason: "case_variant" };
    }
    for (const [reason, path] of commonReadings(options.rawPath ?? rawPath)) {
      if (differs(path)) return { kind: "invalid", reason };
    }
    if (!normalized.ok || options.refuseLenientReadings) {
      const reason: PathRejection = normalized.ok ? "lenient_reading" : normalized.reason;
      const readings = lenientReadings(rawPath);
      if (readings === undefined) return { kind: "invalid", reason: "too_many_readings" };
      for (const reading of readings) {
        if (readingPaths(reading).some(differs)) return { kind: "invalid", reason };
      }
    }
    if (!normalized.ok || !route) return { kind: "free" };
    return { kind: "priced", route, path: normalized.path };
  }

  private find(method: string, path: string): PricedRoute | undefined {
    if (this.routes.length === 0) return undefined;
    return this.index.find(method, segmentsOf(path, this.caseSensitive));
  }
}

/** How many match answers a table keeps ({@link RouteTable}'s memo), and the longest path kept (bytes of memory bounded). */
const MEMO_ENTRIES = 1024;
const MEMO_MAX_PATH = 512;

/** Which of the memo's eight shelves holds answers of this kind, leniency, and with or without a raw path. */
function memoShelf(kind: "m" | "n", options: MatchOptions): number {
  return (
    (kind === "n" ? 4 : 0) +
    (options.refuseLenientReadings === true ? 2 : 0) +
    (options.rawPath === undefined ? 0 : 1)
  );
}

/** A normalised path's segments as routes compare them: each decoded (as the official matcher does), lower-cased unless case-sensitive. */
function segmentsOf(path: string, caseSensitive: boolean): string[] {
  if (path === "/") return [];
  const segments = path.slice(1).split("/");
  for (let i = 0; i < segments.length; i++) {
    let segment = segments[i] as string;
    if (segment.includes("%")) {
      try {
        // A decoded separator stays inside its segment, written as the official matcher writes it.
        segment = decodeURIComponent(segment).replace(/\//g, "%2F").replace(/\\/g, "%5C");
      } catch {
        // Not UTF-8: compared as written, as the official matcher does.
      }
    }
    segments[i] = caseSensitive ? segment : segment.toLowerCase();
  }
  return segments;
}

/** A dot segment, written or encoded: `.`, `..`, `%2e`, `.%2E`… */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;
/** An encoded `/` or `\\`, which the official matcher keeps inside its segment. */
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
/** A leading `//` (or with `\\`): WHATWG `new URL(target, base)` reads what follows as a host. */
const AUTHORITY = /^[/\\]{2,}[^/\\]*/;

/**
 * The readings of a path that ordinary servers make, not only lenient ones, so they are checked whatever
 * `refuseLenientReadings` says: dot segments left as they are (the official matcher, Express's router, a
 * proxy that forwards the target unchanged), a leading `//` read as a host (`new URL(req.url, base)`), and
 * an encoded `/` or `\\` kept inside its segment (the official matcher).
 */
function commonReadings(rawPath: string): Array<[PathRejection, string | undefined]> {
  const readings: Array<[PathRejection, string | undefined]> = [];
  if (DOT_SEGMENT.test(rawPath)) {
    const kept = normalizePath(rawPath, { keepDotSegments: true });
    readings.push(["dot_segments", kept.ok ? kept.path : undefined]);
  }
  if (AUTHORITY.test(rawPath)) {
    for (const path of readingPaths(rawPath.replace(AUTHORITY, "") || "/"))
      readings.push(["authority", path]);
  }
  if (DOT_SEGMENT.test(rawPath) || rawPath.includes("//") || rawPath.includes("\\")) {
    // WHATWG resolves dot segments without collapsing `//` (`/a//..` is `/a/`), and what is left may
    // begin with a host.
    const resolved = whatwgPathname(rawPath);
    if (resolved !== undefined) {
      const read = normalizePath(resolved, { keepEncodedSeparators: true });
      const reason: PathRejection = AUTHORITY.test(rawPath)
        ? "authority"
        : DOT_SEGMENT.test(rawPath)
          ? "dot_segments"
          : "backslash";
      readings.push([reason, read.ok ? read.path : undefined]);
    }
    if (resolved !== undefined && AUTHORITY.test(resolved))
      for (const path of readingPaths(resolved.replace(AUTHORITY, "") || "/"))
        readings.push(["authority", path]);
  }
  if (ENCODED_SEPARATOR.test(rawPath)) {
    const kept = normalizePath(rawPath, { keepEncodedSeparators: true });
    readings.push(["encoded_slash", kept.ok ? kept.path : undefined]);
  }
  return readings;
}

/** The path `new URL(path, base)` reads; `undefined` where it refuses (a host it cannot parse). */
function whatwgPathname(path: string): string | undefined {
  try {
    return new URL(path, "http://h").pathname;
  } catch {
    return undefined;
  }
}

/**
 * How a lenient server would resolve a reading: encoded and back slashes as separators, lone `%` literal;
 * with its dot segments resolved, and also left as they are when it has any. An encoded `/` or `\\` is
 * also read as WHATWG reads it, kept inside its segment while the dot segments around it resolve.
 */
function readingPaths(reading: string): string[] {
  const paths: string[] = [];
  if (ENCODED_SEPARATOR.test(reading)) {
    const kept = normalizePath(reading, { keepEncodedSeparators: true });
    if (kept.ok) paths.push(kept.path);
  }
  const separated = reading
    .replace(/%(2f|5c)/gi, "/")
    .replace(/\\/g, "/")
    .replace(/%(?![0-9a-fA-F]{2})/g, "%25");
  const resolved = normalizePath(separated);
  if (resolved.ok) paths.push(resolved.path);
  if (DOT_SEGMENT.test(separated)) {
    const kept = normalizePath(separated, { keepDotSegments: true });
    if (kept.ok) paths.push(kept.path);
  }
  return paths;
}

/** Compile a route's `requestBody` schema; `{ openApi: true }` is loaded at start-up (see `StartupChecks`). */
function bodyValidatorOf(key: string, config: RouteConfig): BodyValidator | undefined {
  const settings = config.requestBody;
  if (settings === undefined || !("schema" in settings)) return undefined;
  try {
    return compileBodyValidator(settings.schema, settings.root);
  } catch (error) {
    throw new RouteConfigError(key, `requestBody.schema: ${(error as Error).message}`);
  }
}
