import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const CORE = join(SRC, "paywall");

interface Import {
  from: string;
  typeOnly: boolean;
}

/** Every `import … from` / `export … from` of a file, and whether TypeScript erases it. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const pattern = /^(import|export)\s+(type\s+)?[^;]*?\s+from\s+"([^"]+)";/gms;
  return [...text.matchAll(pattern)].map((match) => ({
    from: match[3] as string,
    typeOnly: match[2] !== undefined,
  }));
}

/** The source files a file loads at run time, followed through relative imports. */
function runtimeClosure(entry: string): Map<string, Import[]> {
  const seen = new Map<string, Import[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const imports = importsOf(file);
    seen.set(file, imports);
    for (const { from, typeOnly } of imports) {
      if (!typeOnly && from.startsWith(".")) visit(resolve(dirname(file), from.replace(/\.js$/, ".ts")));
    }
  };
  visit(entry);
  return seen;
}

const isExpress = (from: string) => from === "express" || from.startsWith("express/");

describe("layers: the payment flow does not depend on a framework", () => {
  const flowFiles = readdirSync(CORE, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(CORE, name));

  it("no file of the core (paywall/) names express, not even for a type", () => {
    expect(flowFiles.length).toBeGreaterThan(3);
    const offenders = flowFiles.filter((file) => importsOf(file).some(({ from }) => isExpress(from)));
    expect(offenders).toEqual([]);
  });

  it.each([
    ["the flow core", join(CORE, "flow/PaymentFlow.ts")],
    ["the node:http adapter", join(SRC, "adapters/node.ts")],
    ["the standalone gateway", join(SRC, "gateway/createGateway.ts")],
  ])("%s loads no express module at run time, directly or through what it imports", (_name, entry) => {
    const closure = runtimeClosure(entry);
    expect(closure.size).toBeGreaterThan(5);
    const loaders = [...closure]
      .filter(([, imports]) => imports.some(({ from, typeOnly }) => !typeOnly && isExpress(from)))
      .map(([file]) => file.slice(SRC.length));
    expect(loaders).toEqual([]);
  });

  it("the check can fail: the Express adapter does load express's types, the staking backend its app", () => {
    const shell = importsOf(join(SRC, "adapters/expressRequestFacts.ts"));
    expect(shell.some(({ from }) => isExpress(from))).toBe(true);
    const staking = [...runtimeClosure(join(SRC, "staking/createStakingBackend.ts"))].filter(([, imports]) =>
      imports.some(({ from, typeOnly }) => !typeOnly && isExpress(from)),
    );
    expect(staking.length).toBeGreaterThan(0);
  });
});
