import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMap, parseAllDocuments, type Document } from "yaml";
import { ROOT, runCli } from "../cli/support/runCli.js";
import { blocksOf, yamlBlocks, type YamlBlock } from "./support/yamlBlocks.js";

// Issue 31, item 8: every ```yaml block of README.md and docs/ goes through the real `check-config`. A
// whole config must pass; one marked `<!-- check-config: fails "<text>" -->` must fail (with that text);
// a `<!-- check-config: fragment … -->` (part of a config, or another program's file) must parse as YAML.
// A Kubernetes manifest is checked through the gateway config its ConfigMap carries.
const blocks = yamlBlocks(ROOT);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docs-yaml-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The YAML documents of a text (`---` separates them). */
const documentsOf = (text: string): Document[] => Array.from(parseAllDocuments(text) as Iterable<Document>);

/** The gateway configs a block holds: itself, or the `*.yaml` entries of a manifest's ConfigMaps. */
function configsOf(block: YamlBlock): string[] {
  const documents = documentsOf(block.text);
  const maps = documents.filter((document) => document.get("kind") === "ConfigMap");
  if (maps.length === 0) {
    expect(documents, `${block.where}: one YAML document, or a manifest with a ConfigMap`).toHaveLength(1);
    return [block.text];
  }
  return maps.flatMap((document) => {
    const data = document.get("data");
    if (!isMap(data)) return [];
    return data.items
      .filter((item) => /\.ya?ml$/.test(String(item.key)))
      .map((item) => String((item.value as { value?: unknown } | null)?.value ?? ""));
  });
}

/** Dummy values for the `${VAR}` references of a block: URLs where a URL is named, else a long secret. */
function dummyEnv(text: string): Record<string, string> {
  const names = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)].map((match) => match[1]!);
  return Object.fromEntries(
    names.map((name) => [name, /_URL$/.test(name) ? "https://dummy.example" : `dummy${"0".repeat(40)}`]),
  );
}

let counter = 0;

async function checkConfig(config: string) {
  const file = join(dir, `block-${counter++}.yaml`);
  await writeFile(file, config);
  return runCli("src/cli/x402-gateway.ts", ["check-config", file], dummyEnv(config));
}

describe("every ```yaml block in the docs passes check-config, or is marked", { timeout: 180_000 }, () => {
  it("finds the blocks (README.md and docs/)", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(11);
    expect(blocks.map((block) => block.where)).toContain(
      blocks.find((block) => block.where.startsWith("docs/SCALING.md") && block.text.includes("ConfigMap"))
        ?.where,
    );
  });

  for (const block of blocks.filter((candidate) => candidate.mark.kind === "fragment")) {
    it(`${block.where} (fragment) parses as YAML`, () => {
      for (const document of documentsOf(block.text)) expect(document.errors, block.where).toEqual([]);
    });
  }

  for (const block of blocks.filter((candidate) => candidate.mark.kind !== "fragment")) {
    const mark = block.mark;
    it(`${block.where}: check-config ${mark.kind === "fails" ? "refuses it, as marked" : "passes"}`, async () => {
      const configs = configsOf(block);
      expect(configs.length, block.where).toBeGreaterThan(0);
      for (const config of configs) {
        const result = await checkConfig(config);
        if (mark.kind === "fails") {
          expect(result.code, `${block.where}\n${result.stdout}`).toBe(1);
          // Refused for the reason the doc gives, and that one only.
          if (mark.expect !== undefined) {
            expect(result.stderr).toContain(mark.expect);
            expect(result.stderr.trim().split("\n"), block.where).toHaveLength(2);
          }
        } else {
          expect(result.stderr, block.where).not.toMatch(/invalid config|refuse/);
          expect(result.code, `${block.where}\n${result.stderr}`).toBe(0);
        }
      }
    });
  }
});

describe("the docs' yaml blocks: how they are read", () => {
  it("takes the mark from the line before the fence, de-indents, and defaults to a whole config", () => {
    const markdown = [
      "text",
      "<!-- check-config: fragment (a route) -->",
      "",
      "```yaml",
      "a: 1",
      "```",
      '  <!-- check-config: fails "allowPlainHttp" -->',
      "  ```yaml",
      "  b: 2",
      "  ```",
      "```yaml",
      "c: 3",
      "```",
    ].join("\n");
    expect(blocksOf("x.md", markdown)).toEqual([
      { where: "x.md:4", text: "a: 1\n", mark: { kind: "fragment", reason: "(a route)" } },
      { where: "x.md:8", text: "b: 2\n", mark: { kind: "fails", expect: "allowPlainHttp" } },
      { where: "x.md:11", text: "c: 3\n", mark: { kind: "config" } },
    ]);
  });
});
