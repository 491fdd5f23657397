import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { CONFIG_SCHEMA_ID, renderConfigJsonSchema } from "../../src/config/buildConfigJsonSchema.js";
import {
  renderConfigReference,
  renderMiddlewareOptionsReference,
} from "../../src/config/renderConfigReference.js";
import { parseConfig } from "../../src/config/loadConfig.js";

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), "utf8");

describe("config/gateway.schema.json", () => {
  it("is up to date with the zod schema (run `npm run config-schema`)", async () => {
    expect(await read("config/gateway.schema.json")).toBe(renderConfigJsonSchema());
  });

  it("is exported by the package as x402-gateway/gateway.schema.json, with the $id the docs point at", async () => {
    // Node's own resolution of the package's "exports" (a package may import itself by name).
    const resolved = createRequire(import.meta.url).resolve("x402-gateway/gateway.schema.json");
    expect(resolved).toBe(fileURLToPath(new URL("../../config/gateway.schema.json", import.meta.url)));
    const schema = JSON.parse(await read("config/gateway.schema.json")) as { $id?: string };
    expect(schema.$id).toBe(CONFIG_SCHEMA_ID);
    const pkg = JSON.parse(await read("package.json")) as { files: string[] };
    expect(pkg.files).toContain("config/gateway.schema.json");
    // The line a consumer's YAML starts with, as docs/gateway.md shows it.
    expect(await read("docs/gateway.md")).toContain(
      "# yaml-language-server: $schema=./node_modules/x402-gateway/config/gateway.schema.json",
    );
  });

  it("docs/config-reference.md is up to date with the zod schema (run `npm run config-schema`)", async () => {
    expect(await read("docs/config-reference.md")).toBe(renderConfigReference());
  });

  it("docs/middleware-options.md is up to date with the options' zod schema (run `npm run config-schema`)", async () => {
    expect(await read("docs/middleware-options.md")).toBe(renderMiddlewareOptionsReference());
  });

  it("documents every key of the config where it is declared (a description in the schema)", () => {
    const rows = renderConfigReference()
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    const undocumented = rows.filter((line) => line.endsWith("|  |")).map((line) => line.split("`")[1]);
    expect(rows.length).toBeGreaterThan(80);
    expect(undocumented).toEqual([]);
  });

  for (const path of ["config/gateway.yaml", "config/gateway.example.yaml"]) {
    it(`accepts ${path} as written (with its \${VAR} references) and the loader accepts it interpolated`, async () => {
      const text = await read(path);
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      const validate = ajv.compile(JSON.parse(renderConfigJsonSchema()) as object);
      const raw: unknown = parse(text, {
        customTags: (tags) =>
          tags.filter(
            (t) => typeof t !== "object" || !("format" in t) || (t.format !== "HEX" && t.format !== "OCT"),
          ),
      });
      expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
      const env = {
        FACILITATOR_API_KEY: "k",
        X402_PAY_TO: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        REDIS_URL: "redis://127.0.0.1:6379",
        X402_FACILITATOR_URL: "https://facilitator.example.com",
        X402_PUBLIC_URL: "https://api.example.com",
        UPSTREAM_URL: "https://api.internal.example.com",
      };
      expect(() => parseConfig(text, { file: path, env })).not.toThrow();
    });
  }
});
