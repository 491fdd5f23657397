import { z } from "zod/v4";
import { STAKING_ERRORS } from "./errors.js";
import type { StakingRoute } from "./stakingRoutes.js";

const errorBodySchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().meta({ description: "Stable error code, e.g. INVALID_REQUEST, POOL_MEMBER_NOT_FOUND" }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

const callSchema = z.object({
  contractAddress: z.string(),
  entrypoint: z.string(),
  calldata: z
    .array(z.string())
    .meta({ description: "Hex addresses and decimal integers; a u256 is [low, high]" }),
});

const successSchema = z.object({ success: z.literal(true), data: z.record(z.string(), z.unknown()) });
const operationSchema = z.object({
  success: z.literal(true),
  data: z
    .looseObject({
      operation: z.string(),
      userAddress: z.string(),
      validator: z.object({ stakerAddress: z.string(), poolAddress: z.string() }),
      token: z.object({ address: z.string(), symbol: z.string(), decimals: z.number().int() }),
      amount: z.string(),
      calls: z.array(callSchema),
      position: z.record(z.string(), z.unknown()).optional().meta({ description: "Local adapter only" }),
    })
    .meta({ description: "Plus the operation's own fields (recipient, estimatedUnpoolTime, …)" }),
});

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

function parameters(route: StakingRoute): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === "path" || (object.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return out;
}

/** The OpenAPI 3.1 document of every route, generated from the zod schemas that validate the requests. */
export function buildOpenApiDocument(options: {
  routes: readonly StakingRoute[];
  title: string;
  description: string;
  version: string;
  serverUrl?: string;
}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorContent = { "application/json": { schema: jsonSchema(errorBodySchema) } };
  for (const route of options.routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const responses: Record<string, unknown> = {
      "200": {
        description: "Success",
        content: { "application/json": { schema: jsonSchema(route.body ? operationSchema : successSchema) } },
      },
    };
    if (route.body || route.query || route.params) {
      responses["400"] = {
        description: "Bad input (INVALID_REQUEST, INVALID_JSON, PAYLOAD_TOO_LARGE, …)",
        content: errorContent,
      };
    }
    for (const code of route.errors) {
      const status = String(STAKING_ERRORS[code].status);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}, ${code}` : code,
        content: errorContent,
      };
    }
    responses["503"] = { description: "CHAIN_UNAVAILABLE (Starknet adapter)", content: errorContent };
    const operation: Record<string, unknown> = {
      operationId: route.key,
      summary: route.summary,
      parameters: parameters(route),
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: jsonSchema(route.body) } },
      };
    }
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const descriptor = {
    summary: "Descriptor: name, version, endpoints, documentation link",
    responses: {
      "200": {
        description: "The descriptor",
        content: { "application/json": { schema: jsonSchema(successSchema) } },
      },
    },
  };
  paths["/"] = { get: { operationId: "descriptor", ...descriptor } };
  paths["/api"] = { get: { operationId: "descriptorApi", ...descriptor } };
  return {
    openapi: "3.1.0",
    info: { title: options.title, description: options.description, version: options.version },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
  };
}
