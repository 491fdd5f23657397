import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = resolve(ROOT, "src");

/**
 * Every specifier a source file loads at run time: `import`/`export … from` (not `import type`), side-effect
 * imports and `import()`; type-only imports are erased by TypeScript and load nothing.
 */
function runtimeSpecifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const statics = /^(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?"([^"]+)";/gms;
  for (const match of text.matchAll(statics)) if (match[2] === undefined) found.push(match[3] as string);
  for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push(match[1] as string);
  return found;
}

/** Node's own modules, named with or without `node:`. */
const isNodeModule = (specifier: string) =>
  specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] as string);

/** The source modules `entries` load, through relative imports, each with the Node modules it imports. */
function nodeImportsOf(entries: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const specifiers = runtimeSpecifiers(file);
    seen.set(file, specifiers.filter(isNodeModule));
    for (const specifier of specifiers)
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
  };
  entries.forEach((entry) => visit(resolve(SRC, entry)));
  return seen;
}

describe("the Fetch adapters' import graph (issue 33, item 1)", () => {
  const graph = nodeImportsOf(["adapters/fetch.ts", "adapters/hono.ts"]);
  const importers = [...graph]
    .filter(([, modules]) => modules.length > 0)
    .map(([file]) => relative(SRC, file))
    .sort();

  it("walks the whole graph: the flow, both wires, the ledgers and the facilitator client", () => {
    expect(graph.size).toBeGreaterThan(150);
    for (const part of [
      "paywall/flow/PaymentFlow.ts",
      "paywall/wires/JsonPaymentWire.ts",
      "paywall/wires/CborPaymentWire.ts",
      "facilitator/HttpFacilitator.ts",
    ])
      expect(graph.has(resolve(SRC, part)), part).toBe(true);
  });

  it("the adapters, the flow, the response port and the JSON wire import no node: module", () => {
    const core = [...graph.keys()]
      .map((file) => relative(SRC, file))
      .filter((file) => file.startsWith("adapters/") || file.startsWith("paywall/"))
      .filter((file) => file !== "paywall/wires/CborPaymentWire.ts");
    expect(core.length).toBeGreaterThan(30);
    expect(core.filter((file) => importers.includes(file))).toEqual([]);
  });

  it("no module of the graph imports a node: module (Workers have none)", () => {
    expect(importers).toEqual([]);
  });

  it("no module of the graph uses Node's global Buffer (common/bytes.ts takes it only when the runtime has one)", () => {
    const users = [...graph.keys()]
      .filter((file) => /\bBuffer\.\w+\(|\bnew Buffer\b|: Buffer\b/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(users).toEqual([]);
  });

  it("Node's own modules are asked for at run time in one place, with a Web fallback beside each use", () => {
    const askers = [...graph.keys()]
      .filter((file) => /getBuiltinModule/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(askers).toEqual(["common/nodeBuiltin.ts"]);
    const users = [...graph.keys()]
      .filter((file) => /\bnodeBuiltin\b/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file))
      .sort();
    // node:crypto's hashing and Ed25519, node:http's keep-alive transport: each with its Web fallback.
    expect(users).toEqual([
      "common/digests.ts",
      "common/nodeBuiltin.ts",
      "facilitator/nodeHttpTransport.ts",
      "protocol/cbor/signatures.ts",
    ]);
  });

  it("the check can fail: the Node adapter's graph imports node:http", () => {
    const node = nodeImportsOf(["adapters/node.ts"]);
    expect(node.get(resolve(SRC, "adapters/holdNodeResponse.ts"))).toContain("node:http");
  });
});
