import { z } from "zod/v4";
import { gatewayConfigSchema } from "./gatewayConfigSchema.js";

/** Where the schema says it lives: the package exports it as `x402-gateway/gateway.schema.json`. */
export const CONFIG_SCHEMA_ID = "https://unpkg.com/x402-gateway/config/gateway.schema.json";

/** The JSON Schema editors use to complete and check a gateway config file (`config/gateway.schema.json`). */
export function buildConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(gatewayConfigSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    $id: CONFIG_SCHEMA_ID,
    ...(allowEnvReferences(schema) as Record<string, unknown>),
    title: "x402-gateway config",
    description:
      "Config file of `x402-gateway serve --config`. Strings may use ${ENV_VAR} and ${ENV_VAR:-default}.",
  };
}

/** The committed file's exact text: two-space JSON and a final newline. */
export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(buildConfigJsonSchema(), null, 2)}\n`;
}

/** A `${VAR}` reference is a string in the file even where the value is a number, boolean or constrained string once interpolated. */
const ENV_REFERENCE = { type: "string", pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}" };

function allowEnvReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(allowEnvReferences);
  if (typeof node !== "object" || node === null) return node;
  const entries = Object.entries(node).map(([key, value]) => [key, allowEnvReferences(value)] as const);
  const copy = Object.fromEntries(entries) as Record<string, unknown>;
  const constrainedString =
    copy.type === "string" && ["enum", "pattern", "format", "const"].some((key) => key in copy);
  if (copy.type === "integer" || copy.type === "number" || copy.type === "boolean" || constrainedString) {
    const { default: fallback, ...rest } = copy;
    return { ...(fallback === undefined ? {} : { default: fallback }), anyOf: [rest, ENV_REFERENCE] };
  }
  return copy;
}
