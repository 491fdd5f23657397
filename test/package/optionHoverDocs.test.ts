import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { z } from "zod/v4";
import { x402OptionsSchema } from "../../src/paywall/setup/options.js";
import { routeSchema } from "../../src/pricing/routeSettings.js";

// Editors show an option's TSDoc on hover: every option of x402() and of a route carries one, and it says
// what the generated reference (the schema's description) says.
const root = path.resolve(import.meta.dirname, "../..");
const file = path.join(root, "test/package/__hover__.ts");
const optionKeys = Object.keys(x402OptionsSchema.shape);
const routeKeys = Object.keys(routeSchema.shape);
const text = [
  'import { x402 } from "../../src/adapters/express.js";',
  "x402({",
  ...optionKeys.filter((key) => key !== "routes").map((key) => `  ${key}: undefined as never,`),
  '  routes: { "GET /x": {',
  ...routeKeys.map((key) => `    ${key}: undefined as never,`),
  "  } },",
  "});",
  "",
].join("\n");

function hoverDocs(): (line: string) => string {
  const parsed = ts.parseJsonConfigFileContent(
    ts.readConfigFile(path.join(root, "tsconfig.json"), (name) => ts.sys.readFile(name)).config,
    ts.sys,
    root,
  );
  const read = (name: string) => (name === file ? text : ts.sys.readFile(name));
  const service = ts.createLanguageService({
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const content = read(name);
      return content === undefined ? undefined : ts.ScriptSnapshot.fromString(content);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (name) => name === file || ts.sys.fileExists(name),
    readFile: read,
  });
  return (line) => {
    const at = text.indexOf(`\n${line}`) + 1 + line.search(/\S/);
    const info = service.getQuickInfoAtPosition(file, at);
    return ts.displayPartsToString(info?.documentation).replace(/\s+/g, " ").trim();
  };
}

const described = (schema: z.ZodType) => (schema.meta()?.description ?? "").replace(/\s+/g, " ").trim();

describe("option TSDoc", () => {
  const hover = hoverDocs();

  it.each(optionKeys)(
    "x402({ %s }) shows the reference's description on hover",
    (key) => {
      const shape = x402OptionsSchema.shape as Record<string, z.ZodType>;
      const line = key === "routes" ? "  routes: {" : `  ${key}: undefined as never,`;
      expect(described(shape[key] as z.ZodType)).not.toBe("");
      expect(hover(line)).toBe(described(shape[key] as z.ZodType));
    },
    180_000,
  ); // the first hover builds the program: seconds, more on a loaded machine

  it.each(routeKeys)("a route's %s shows the reference's description on hover", (key) => {
    const shape = routeSchema.shape as Record<string, z.ZodType>;
    expect(described(shape[key] as z.ZodType)).not.toBe("");
    expect(hover(`    ${key}: undefined as never,`)).toBe(described(shape[key] as z.ZodType));
  });
});
