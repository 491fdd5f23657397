import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  declareDiscoveryExtension,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DeclareDiscoveryExtensionInput,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { bazaarDeclarationIssues } from "../../src/pricing/bazaarDeclarationIssues.js";
import { declareBazaar } from "../../src/pricing/declareBazaar.js";
import { discoverySchema, type DiscoverySettings } from "../../src/pricing/discoverySettings.js";

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean());
const example = fc.dictionary(name, scalar, { maxKeys: 4 });
const propertySchema = fc.constantFrom({ type: "string" }, { type: "number" }, { type: "boolean" }, {});
const objectSchema = fc
  .dictionary(name, propertySchema, { maxKeys: 4 })
  .chain((properties) =>
    fc.record(
      { properties: fc.constant(properties), required: fc.subarray(Object.keys(properties)) },
      { requiredKeys: ["properties"] },
    ),
  );

/** Discovery settings as a user writes them (also what `declareDiscoveryExtension` takes). */
const settings: fc.Arbitrary<DiscoverySettings> = fc
  .record(
    {
      bodyType: fc.constantFrom("json", "form-data", "text"),
      input: example,
      inputSchema: objectSchema,
      pathParams: example,
      pathParamsSchema: objectSchema,
      output: fc.record({ example, schema: objectSchema }, { requiredKeys: ["example"] }),
    },
    { requiredKeys: [] },
  )
  .map((value) => value as DiscoverySettings);

describe("declareBazaar: the official declaration, written by us", () => {
  it("equals declareDiscoveryExtension's output for the same settings", () => {
    fc.assert(
      fc.property(settings, (given) => {
        expect(discoverySchema.safeParse(given).success).toBe(true);
        const official = declareDiscoveryExtension(given as DeclareDiscoveryExtensionInput).bazaar;
        expect(declareBazaar(given)).toEqual(official);
      }),
    );
  });

  it("passes its own start-up check, and, given a method, the official validations", () => {
    fc.assert(
      fc.property(settings, (given) => {
        const declared = declareBazaar(given);
        expect(bazaarDeclarationIssues(declared)).toEqual([]);
        const method = given.bodyType === undefined ? "GET" : "POST";
        const withMethod = {
          ...declared,
          info: { ...declared.info, input: { ...declared.info.input, method } },
        };
        expect(validateDiscoveryExtensionSpec(withMethod)).toEqual({ valid: true });
        // The examples are checked against their schemas only when they fit them: a random example may not.
        const result = validateDiscoveryExtension(withMethod as unknown as DiscoveryExtension);
        // Why a route without `:params` needs pathParamsSchema beside pathParams (refused at start-up).
        if (given.pathParams !== undefined && given.pathParamsSchema === undefined) {
          expect(result.errors).toContain("/input: must NOT have additional properties");
          return;
        }
        if (!result.valid) expect(result.errors?.join(" ")).toMatch(/\/(queryParams|body|pathParams|output)/);
      }),
    );
  });
});

const good = declareDiscoveryExtension({
  input: { q: "x" },
  inputSchema: { properties: { q: { type: "string" } } },
}).bazaar as unknown as Record<string, unknown>;
const info = good.info as { input: Record<string, unknown> };
const withInput = (input: Record<string, unknown>) => ({
  ...good,
  info: { ...info, input: { ...info.input, ...input } },
});

/** Declarations given under `extensions.bazaar` that a facilitator could not use, and where they fail. */
const HOSTILE: Array<[name: string, value: unknown, path: Array<string | number>]> = [
  ["not an object", "bazaar", []],
  ["an array", [good], []],
  ["no info", { schema: good.schema }, ["info", "input"]],
  ["no schema", { info: good.info }, ["schema"]],
  ["an unknown key", { ...good, extra: 1 }, ["extra"]],
  ["an unknown input type", withInput({ type: "ftp" }), ["info", "input", "type"]],
  ["an unknown method", withInput({ method: "TRACE" }), ["info", "input", "method"]],
  [
    "a body type on GET",
    withInput({ method: "GET", bodyType: "json", body: {} }),
    ["info", "input", "bodyType"],
  ],
  ["an unknown body type", withInput({ bodyType: "xml", body: {} }), ["info", "input", "bodyType"]],
  ["a body type without a body", withInput({ bodyType: "json" }), ["info", "input", "body"]],
  ["queryParams not an object", withInput({ queryParams: "q=1" }), ["info", "input", "queryParams"]],
  ["headers not strings", withInput({ headers: { a: 1 } }), ["info", "input", "headers"]],
  [
    "an external $ref",
    { ...good, schema: { properties: { input: { $ref: "https://evil.example/s.json" } } } },
    ["schema", "properties", "input", "$ref"],
  ],
  [
    "an external $id",
    { ...good, schema: { $id: "https://evil.example/", properties: { input: {} } } },
    ["schema", "$id"],
  ],
  ["a schema without input", { ...good, schema: { type: "object" } }, ["schema", "properties", "input"]],
  [
    "a __proto__ key",
    JSON.parse(`{"info":{"input":{"type":"http","__proto__":{"x":1}}},"schema":{}}`),
    ["info", "input", "__proto__"],
  ],
  ["a routeTemplate with ..", { ...good, routeTemplate: "/a/../admin" }, ["routeTemplate"]],
  ["a routeTemplate that is a URL", { ...good, routeTemplate: "/https://evil.example" }, ["routeTemplate"]],
  ["a percent-encoded routeTemplate", { ...good, routeTemplate: "/a/%2e%2e/b" }, ["routeTemplate"]],
  ["an MCP tool without a name", withInput({ type: "mcp", inputSchema: {} }), ["info", "input", "toolName"]],
  [
    "an MCP tool with an unknown transport",
    withInput({ type: "mcp", toolName: "t", inputSchema: {}, transport: "ws" }),
    ["info", "input", "transport"],
  ],
  ["an output that is not an object", { ...good, info: { ...info, output: "json" } }, ["info", "output"]],
];

describe("bazaarDeclarationIssues: hostile corpus", () => {
  it.each(HOSTILE)("%s", (_name, value, path) => {
    const issues = bazaarDeclarationIssues(value);
    expect(issues.map((issue) => issue.path)).toContainEqual(path);
  });

  it("whatever the official spec check refuses, it refuses too", () => {
    const inputs = fc.record(
      {
        type: fc.constantFrom("http", "mcp", "ftp", 1),
        method: fc.constantFrom("GET", "POST", "TRACE", "get", 7),
        bodyType: fc.constantFrom("json", "text", "xml", null),
        body: fc.constantFrom({}, "x"),
        toolName: fc.constantFrom("tool", "", 3),
        inputSchema: fc.constantFrom({}, "s"),
        transport: fc.constantFrom("sse", "ws"),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(inputs, (input) => {
        const value = { info: { input }, schema: good.schema };
        if (!validateDiscoveryExtensionSpec(value).valid)
          expect(bazaarDeclarationIssues(value)).not.toEqual([]);
      }),
    );
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withMap: true }), (value) => {
        expect(Array.isArray(bazaarDeclarationIssues(value))).toBe(true);
        expect(Array.isArray(bazaarDeclarationIssues({ info: { input: value }, schema: value }))).toBe(true);
      }),
    );
  });
});
