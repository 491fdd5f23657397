import { BODY_METHODS, QUERY_METHODS } from "./declareBazaar.js";
import { DISCOVERY_BODY_TYPES } from "./discoverySettings.js";
import { externalSchemaReference } from "./externalSchemaReference.js";
import { isRouteTemplate } from "./isRouteTemplate.js";
import { jsonValueIssues, type JsonValueIssue } from "./jsonValueIssues.js";

const DECLARATION_KEYS: ReadonlySet<string> = new Set(["info", "schema", "routeTemplate"]);
const MCP_TRANSPORTS: ReadonlySet<string> = new Set(["streamable-http", "sse"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function httpInputIssues(input: Record<string, unknown>): JsonValueIssue[] {
  const issues: JsonValueIssue[] = [];
  const at = (key: string, message: string) => issues.push({ path: ["info", "input", key], message });
  const { method, bodyType } = input;
  if (
    method !== undefined &&
    !(typeof method === "string" && [...QUERY_METHODS, ...BODY_METHODS].includes(method))
  )
    at("method", `expected one of ${[...QUERY_METHODS, ...BODY_METHODS].join(", ")}`);
  if (bodyType !== undefined) {
    if (!(DISCOVERY_BODY_TYPES as readonly unknown[]).includes(bodyType))
      at("bodyType", `expected one of ${DISCOVERY_BODY_TYPES.join(", ")}`);
    if (typeof method === "string" && !BODY_METHODS.includes(method))
      at("bodyType", `a body on a ${method} route (a body goes with POST, PUT or PATCH)`);
    if (!isRecord(input.body)) at("body", "expected the body's example, an object");
  }
  for (const key of ["queryParams", "pathParams", "headers"]) {
    if (input[key] !== undefined && !isRecord(input[key])) at(key, "expected an object");
  }
  if (isRecord(input.headers) && Object.values(input.headers).some((value) => typeof value !== "string"))
    at("headers", "expected string values");
  return issues;
}

function mcpInputIssues(input: Record<string, unknown>): JsonValueIssue[] {
  const issues: JsonValueIssue[] = [];
  const at = (key: string, message: string) => issues.push({ path: ["info", "input", key], message });
  if (typeof input.toolName !== "string" || input.toolName === "") at("toolName", "expected the tool's name");
  if (!isRecord(input.inputSchema)) at("inputSchema", "expected the tool's input JSON Schema, an object");
  if (input.transport !== undefined && !MCP_TRANSPORTS.has(input.transport as string))
    at("transport", `expected one of ${[...MCP_TRANSPORTS].join(", ")}`);
  return issues;
}

/**
 * What keeps `value` from being a Bazaar declaration (`extensions.bazaar`, e.g. `declareDiscoveryExtension`'s
 * output given as it is): `{ info, schema }` of plain bounded JSON, an HTTP or MCP input a facilitator reads
 * (the checks of `validateDiscoveryExtensionSpec`), and a schema naming nothing outside itself.
 */
export function bazaarDeclarationIssues(value: unknown): JsonValueIssue[] {
  if (!isRecord(value)) return [{ path: [], message: "expected { info, schema }" }];
  const bounded = jsonValueIssues(value);
  if (bounded.length > 0) return bounded;
  const issues: JsonValueIssue[] = [];
  for (const key of Object.keys(value)) {
    if (!DECLARATION_KEYS.has(key))
      issues.push({ path: [key], message: "unknown key (expected info, schema)" });
  }
  const { info, schema, routeTemplate } = value;
  if (!isRecord(schema)) issues.push({ path: ["schema"], message: "expected the declaration's JSON Schema" });
  else {
    const at = externalSchemaReference(schema);
    if (at) issues.push({ path: ["schema", ...at], message: "a reference outside the schema" });
    if (!isRecord(schema.properties) || !isRecord(schema.properties.input))
      issues.push({ path: ["schema", "properties", "input"], message: "expected the schema of info.input" });
  }
  if (routeTemplate !== undefined && !isRouteTemplate(routeTemplate))
    issues.push({ path: ["routeTemplate"], message: "expected a path such as /users/:id" });
  if (!isRecord(info) || !isRecord(info.input)) {
    issues.push({ path: ["info", "input"], message: "expected { type, … }" });
    return issues;
  }
  if (info.output !== undefined && !isRecord(info.output))
    issues.push({ path: ["info", "output"], message: "expected { type, example }" });
  const { input } = info;
  if (input.type === "http") return [...issues, ...httpInputIssues(input)];
  if (input.type === "mcp") return [...issues, ...mcpInputIssues(input)];
  return [...issues, { path: ["info", "input", "type"], message: 'expected "http" or "mcp"' }];
}
