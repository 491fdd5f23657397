import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
  license: string;
  exports: Record<string, string | { default: string; types: string }>;
};
/** What stays out of the package: the local stack and `npm start`, which import devDependencies. */
const DEV_ONLY = [/^src\/dev\//, /^src\/cli\/start(\.ts$|\/)/];

/** The sources the build compiles (tsconfig.build.json: src minus the dev stack). */
function publishedSources(): string[] {
  return readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .map((name) => `src/${name}`)
    .filter((path) => path.endsWith(".ts") && !DEV_ONLY.some((pattern) => pattern.test(path)));
}

/** The package a bare import specifier names: `viem/accounts` → viem, `@x402/core/client` → @x402/core. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

describe("the published package", () => {
  // npm pack runs `prepare` (a clean build) first, so the list is what a user would install.
  it(
    "npm pack lists exactly the build of the published sources, the config schema and example, README and LICENSE",
    { timeout: 180_000 },
    () => {
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json"], {
          cwd: ROOT,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }),
      ) as [{ files: { path: string }[] }];
      const files = packed.files.map((file) => file.path);
      const tops = new Set(files.map((path) => path.split("/")[0]));
      expect([...tops].sort()).toEqual(["LICENSE", "README.md", "config", "dist", "package.json"]);
      // The schema editors validate against and a production example; not the local demo's config.
      expect(files.filter((path) => path.startsWith("config/")).sort()).toEqual([
        "config/gateway.example.yaml",
        "config/gateway.schema.json",
      ]);
      const built = files.filter((path) => path.startsWith("dist/") && path.endsWith(".js"));
      const expected = publishedSources().map((path) =>
        path.replace(/^src\//, "dist/").replace(/\.ts$/, ".js"),
      );
      expect(built.sort()).toEqual(expected.sort());
      for (const target of [...Object.values(pkg.bin), ...Object.values(pkg.exports)]) {
        const path = (typeof target === "string" ? target : target.default).replace(/^\.\//, "");
        expect(files, path).toContain(path);
      }
    },
  );

  it("published code imports only dependencies (never a devDependency such as solc, anvil or @x402/*)", () => {
    const allowed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]);
    const offenders: string[] = [];
    for (const path of publishedSources()) {
      const text = readFileSync(join(ROOT, path), "utf8");
      for (const [, specifier] of text.matchAll(
        /^\s*(?:import|export)(?!\s+type\b)[^"';]*?from\s+"([^"]+)"/gm,
      )) {
        if (specifier!.startsWith(".") || specifier!.startsWith("node:")) continue;
        if (builtinModules.includes(specifier!)) continue;
        if (!allowed.has(packageOf(specifier!)))
          offenders.push(`${relative(ROOT, join(ROOT, path))}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the LICENSE is the licence package.json names", () => {
    const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(pkg.license).toBe("MIT");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) x402-gateway contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });

  it("better-sqlite3 is an optional peer, not something every middleware user compiles", () => {
    expect(pkg.dependencies["better-sqlite3"]).toBeUndefined();
    expect(pkg.peerDependencies?.["better-sqlite3"]).toBeDefined();
  });
});
