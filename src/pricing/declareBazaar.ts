import type { DiscoverySettings } from "./discoverySettings.js";

/** The `extensions.bazaar` value of an offer: what the endpoint takes and answers, and a JSON Schema of it. */
export interface BazaarDeclaration {
  info: { input: Record<string, unknown>; output?: Record<string, unknown> } & Record<string, unknown>;
  schema: Record<string, unknown>;
  routeTemplate?: string;
}

export const QUERY_METHODS: readonly string[] = ["GET", "HEAD", "DELETE"];
export const BODY_METHODS: readonly string[] = ["POST", "PUT", "PATCH"];
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

function objectSchema(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  return { type: "object", ...extra };
}

/**
 * The Bazaar declaration of a route's `discovery` setting, in the shape `declareDiscoveryExtension` of
 * `@x402/extensions/bazaar` gives (same info, same schema), before the request's method fills it in.
 */
export function declareBazaar(settings: DiscoverySettings): BazaarDeclaration {
  const { bodyType, pathParams, pathParamsSchema, output } = settings;
  const input = settings.input ?? {};
  const inputSchema = settings.inputSchema ?? { properties: {} };
  const info: BazaarDeclaration["info"] = {
    input: {
      type: "http",
      ...(bodyType === undefined ? { queryParams: input } : { bodyType, body: input }),
      ...(pathParams === undefined ? {} : { pathParams }),
    },
  };
  const inputProperties: Record<string, unknown> = {
    type: { type: "string", const: "http" },
    method: { type: "string", enum: [...(bodyType === undefined ? QUERY_METHODS : BODY_METHODS)] },
    ...(bodyType === undefined
      ? { queryParams: objectSchema(inputSchema) }
      : { bodyType: { type: "string", enum: ["json", "form-data", "text"] }, body: inputSchema }),
    ...(pathParamsSchema === undefined ? {} : { pathParams: objectSchema(pathParamsSchema) }),
  };
  const properties: Record<string, unknown> = {
    input: {
      type: "object",
      properties: inputProperties,
      required: bodyType === undefined ? ["type", "method"] : ["type", "method", "bodyType", "body"],
      additionalProperties: false,
    },
  };
  if (output?.example !== undefined) {
    info.output = { type: "json", example: output.example };
    properties.output = {
      type: "object",
      properties: { type: { type: "string" }, example: objectSchema(output.schema) },
      required: ["type"],
    };
  }
  return { info, schema: { $schema: DRAFT_2020_12, type: "object", properties, required: ["input"] } };
}
