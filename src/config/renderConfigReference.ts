import { z } from "zod/v4";
import { x402OptionsSchema } from "../paywall/setup/options.js";
import { paywallSettingsSchema } from "../paywall/page/paywallSettingsSchema.js";
import { buildConfigJsonSchema } from "./buildConfigJsonSchema.js";

interface Node {
  pattern?: string;
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
}

interface Row {
  key: string;
  type: string;
  fallback: string;
  description: string;
}

/**
 * `docs/config-reference.md`: every key of the gateway's config file with its type, default and
 * description, generated from the same zod schema that validates the file (`npm run config-schema`).
 */
export function renderConfigReference(): string {
  return renderSettingsReference(buildConfigJsonSchema(), [
    "# Config reference",
    "",
    "Generated from the config's zod schema by `npm run config-schema` (a test keeps it fresh); the same",
    "text is in `config/gateway.schema.json` for editors. `*` stands for any key (a route key, a network),",
    "`[]` for an item of a list. Strings may use `${VAR}` and `${VAR:-default}`.",
  ]);
}

/**
 * `docs/middleware-options.md`: every serialisable option of `x402()` (what a config file could say too),
 * from the same zod schema that validates them.
 */
export function renderMiddlewareOptionsReference(): string {
  const schema = z.toJSONSchema(paywallSettingsSchema, { io: "input", unrepresentable: "any" });
  const settings = paywallSettingsSchema.shape as Record<string, z.ZodType>;
  const options = x402OptionsSchema.shape as Record<string, z.ZodType>;
  // What only code can pass: keys the settings lack, or take more in code (an instance, a function).
  const codeOnly = Object.keys(options).filter((key) => settings[key] !== options[key]);
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    renderSettingsReference(schema as Record<string, unknown>, [
      "# `x402()` options reference",
      "",
      "Generated from the options' zod schema by `npm run docs` (a test keeps it fresh); editors show the",
      "same text on hover. The [middleware guide](middleware.md#options) explains them. `*` stands for any",
      "key, `[]` for an item of a list.",
      "",
      "## Settings",
      "",
      "What a config file could say too (the gateway's config takes the same keys, see",
      "[config-reference.md](config-reference.md)).",
    ]).trimEnd(),
    "",
    "## Options only code can pass",
    "",
    "| option | description |",
    "| --- | --- |",
    ...codeOnly.map((key) => `| \`${key}\` | ${cell(options[key]?.meta()?.description ?? "")} |`),
    "",
  ].join("\n");
}

function renderSettingsReference(schema: Record<string, unknown>, intro: string[]): string {
  const rows: Row[] = [];
  collect(schema as Node, "", rows);
  const seen = new Set<string>();
  const unique = rows.filter((row) => !seen.has(row.key) && seen.add(row.key));
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    ...intro,
    "",
    "| key | type | default | description |",
    "| --- | --- | --- | --- |",
    ...unique.map(
      (row) =>
        `| \`${row.key}\` | ${cell(row.type)} | ${row.fallback === "" ? "" : `\`${cell(row.fallback)}\``} | ${cell(row.description)} |`,
    ),
    "",
  ].join("\n");
}

function collect(node: Node, path: string, rows: Row[]): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const at = path === "" ? key : `${path}.${key}`;
    rows.push({ key: at, type: typeOf(child), fallback: defaultOf(child), description: describe(child) });
    walkInto(child, at, rows);
  }
}

function walkInto(node: Node, at: string, rows: Row[]): void {
  for (const option of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) walkInto(option, at, rows);
  if (node.properties) collect(node, at, rows);
  if (node.items) walkInto(node.items, `${at}[]`, rows);
  if (typeof node.additionalProperties === "object") walkInto(node.additionalProperties, `${at}.*`, rows);
}

function describe(node: Node): string {
  return node.description ?? [...(node.anyOf ?? []), ...(node.oneOf ?? [])].map(describe).find(Boolean) ?? "";
}

function defaultOf(node: Node): string {
  return node.default === undefined ? "" : JSON.stringify(node.default);
}

function typeOf(node: Node): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(" or ");
  if (node.type !== undefined) return Array.isArray(node.type) ? node.type.join(" or ") : node.type;
  // `${VAR}` references are an extra string option of every number, boolean or constrained string.
  const options = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].filter((option) => !isEnvReference(option));
  return [...new Set(options.map(typeOf))].join(" or ") || "any";
}

function isEnvReference(node: Node & { pattern?: string }): boolean {
  return node.type === "string" && node.pattern?.startsWith("\\$\\{") === true;
}
