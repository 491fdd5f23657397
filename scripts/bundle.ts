import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** An export or bin of package.json, `./dist/<path>.js`, is built from `src/<path>.ts`. */
const sourceOf = (built: string): string =>
  join(ROOT, built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));

/** The files package.json publishes as entry points: every export's code and every bin. */
export function packageEntryPoints(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, string | { default: string }>;
    bin: Record<string, string>;
  };
  const built = [
    ...Object.values(pkg.exports).flatMap((target) => (typeof target === "string" ? [] : [target.default])),
    ...Object.values(pkg.bin),
  ];
  return built.map(sourceOf);
}

/**
 * The package's JavaScript: each entry point one file at its dist path, the code entries share in
 * `chunks/`, and every npm package left to Node to load. A root import then reads a handful of files
 * instead of ~170 (docs/dependencies.md, "Cold start"); code behind an `await import()` (recognition's
 * RPC client, the MCP server, ...) stays in a chunk of its own, loaded when the feature is used.
 */
export async function bundlePackage(outdir: string): Promise<void> {
  await build({
    entryPoints: packageEntryPoints(),
    outbase: join(ROOT, "src"),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: true,
    sourcesContent: false,
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundlePackage(process.argv[2] ?? join(ROOT, "dist"));
}
