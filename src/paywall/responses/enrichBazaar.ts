import type { BazaarDeclaration } from "../../pricing/declareBazaar.js";
import { BODY_METHODS, QUERY_METHODS } from "../../pricing/declareBazaar.js";
import type { RouteBazaar } from "../../pricing/compileRouteBazaar.js";
import { isRouteTemplate } from "../../pricing/isRouteTemplate.js";

/** The request an offer answers, as far as its Bazaar declaration goes. */
export interface BazaarRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** The priced path (below the mount path), without the query. */
  path: string;
  /** Where the paywall is mounted (`""` at the root). */
  mountPath: string;
}

function objectAt(value: Record<string, unknown> | undefined, key: string): Record<string, unknown> {
  const found = value?.[key];
  return typeof found === "object" && found !== null ? (found as Record<string, unknown>) : {};
}

function pathParamsOf(template: NonNullable<RouteBazaar["template"]>, path: string): Record<string, string> {
  const segments = path.split("/").filter((segment) => segment !== "");
  const params: Record<string, string> = {};
  for (const { name, index } of template.params) {
    const value = segments[index];
    if (value !== undefined) params[name] = value;
  }
  // As the official server: the wildcard is one parameter, filled when it stands for one segment.
  const at = template.wildcardAt;
  if (at !== undefined && segments.length === at + 1) params.var1 = segments[at] as string;
  return params;
}

/**
 * The route's Bazaar declaration for one request (what the official server's `enrichDeclaration` does): the
 * request's method in `info.input.method` and in the schema, and on a route with parameters its
 * `routeTemplate` and `pathParams`. Undefined when the method cannot carry the declared input (a GET on a
 * route that declares a body, an OPTIONS): nothing true could be catalogued for it.
 */
export function enrichBazaar(bazaar: RouteBazaar, request: BazaarRequest): BazaarDeclaration | undefined {
  const { declaration } = bazaar;
  if (bazaar.kind === "mcp") return declaration;
  if (!(bazaar.body ? BODY_METHODS : QUERY_METHODS).includes(request.method)) return undefined;
  const { method } = request;
  const schemaProperties = objectAt(declaration.schema, "properties");
  const inputSchema = objectAt(schemaProperties, "input");
  const inputProperties: Record<string, unknown> = {
    ...objectAt(inputSchema, "properties"),
    method: { type: "string", enum: [method] },
  };
  const required = Array.isArray(inputSchema.required) ? (inputSchema.required as unknown[]) : [];
  const input: Record<string, unknown> = { ...declaration.info.input, method };
  const enriched: BazaarDeclaration = { ...declaration, info: { ...declaration.info, input } };
  const template = bazaar.template && `${request.mountPath}${bazaar.template.path}`;
  if (bazaar.template && isRouteTemplate(template)) {
    enriched.routeTemplate = template;
    input.pathParams = pathParamsOf(bazaar.template, request.path);
    inputProperties.pathParams ??= { type: "object" };
  }
  enriched.schema = {
    ...declaration.schema,
    properties: {
      ...schemaProperties,
      input: {
        ...inputSchema,
        properties: inputProperties,
        required: required.includes("method") ? required : [...required, "method"],
      },
    },
  };
  return enriched;
}
