import type { RoutePattern } from "./compileRoutePattern.js";
import { BODY_METHODS, declareBazaar, QUERY_METHODS, type BazaarDeclaration } from "./declareBazaar.js";
import type { RouteConfig } from "./routeSettings.js";

/** A route's Bazaar declaration, compiled once: what every offer of the route fills in per request. */
export interface RouteBazaar {
  declaration: BazaarDeclaration;
  /** `http`: the method and path parameters are filled per request; `mcp`: offered as declared. */
  kind: "http" | "mcp";
  /** Whether the declaration describes a body (POST/PUT/PATCH) rather than query parameters (GET/HEAD/DELETE). */
  body: boolean;
  /** The route's path as a template (`/weather/:city`, a trailing `*` as `:var1`), when it has parameters. */
  template?:
    { path: string; params: Array<{ name: string; index: number }>; wildcardAt?: number } | undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function templateOf(key: string): RouteBazaar["template"] {
  const path = key.trim().split(/\s+/).at(-1) ?? "/";
  const segments = path.split("/").filter((segment) => segment !== "");
  const params: Array<{ name: string; index: number }> = [];
  segments.forEach((segment, index) => {
    if (segment.startsWith(":")) params.push({ name: segment.slice(1), index });
  });
  const wildcard = segments.at(-1) === "*";
  // As the official server: no template for a static path, nor for a path of wildcards only.
  if (params.length === 0 && (!wildcard || segments.length === 1)) return undefined;
  const written = segments.map((segment) => (segment === "*" ? ":var1" : segment));
  return {
    path: `/${written.join("/")}`,
    params,
    wildcardAt: wildcard ? segments.length - 1 : undefined,
  };
}

/**
 * The route's Bazaar declaration (its `discovery` setting, or an `extensions.bazaar` given as it is), checked
 * against the route key; throws a message naming the field when the two disagree.
 */
export function compileRouteBazaar(
  key: string,
  pattern: RoutePattern,
  config: RouteConfig,
): RouteBazaar | undefined {
  const given = config.extensions?.bazaar;
  if (config.discovery !== undefined && given !== undefined)
    throw new Error("discovery: give `discovery` or `extensions.bazaar`, not both");
  if (config.discovery === undefined && given === undefined) return undefined;
  // "field: …" as the route table's other messages, so check-config points at the field.
  const field = config.discovery === undefined ? "extensions: the bazaar declaration" : "discovery:";
  if (config.price === undefined && (config.accepts?.length ?? 0) === 0)
    throw new Error(
      `${field} a route offered in CBOR only has no JSON offer to carry it (a CBOR offer has no extensions)`,
    );
  const declaration =
    config.discovery === undefined ? (given as BazaarDeclaration) : declareBazaar(config.discovery);
  const input = declaration.info.input;
  if (input.type === "mcp") return { declaration, kind: "mcp", body: false };
  const body = input.bodyType !== undefined;
  const { method } = pattern;
  if (method !== undefined) {
    const fits = body ? BODY_METHODS : QUERY_METHODS;
    if (!fits.includes(method))
      throw new Error(
        body
          ? `${field} Bazaar reads a body (bodyType) on POST, PUT or PATCH, not on ${method}`
          : `${field} Bazaar reads query parameters (no bodyType) on GET, HEAD or DELETE, not on ${method}`,
      );
    if (input.method !== undefined && input.method !== method)
      throw new Error(`${field} info.input.method ${String(input.method)} on a ${method} route`);
  }
  const template = templateOf(key);
  const inputSchema = record(record(record(declaration.schema.properties)?.input)?.properties);
  if (input.pathParams !== undefined && template === undefined && inputSchema?.pathParams === undefined)
    throw new Error(
      `${field} pathParams on a route without :params needs ${config.discovery ? "pathParamsSchema" : "schema.properties.input.properties.pathParams"}`,
    );
  return { declaration, kind: "http", body, template };
}
