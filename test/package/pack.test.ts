import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { collect, waitForLine } from "../cli/support/runCli.js";
import { LAZY_PACKAGES, packagesLoadedBy } from "../support/packagesLoadedBy.js";

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

/** A gateway config that starts (nothing behind it answers): one priced route. */
const GATEWAY_YAML = `listen: { host: 127.0.0.1, port: 0 }
facilitator: { url: "http://127.0.0.1:9" }
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:9
routes:
  GET /priced: { price: $0.01 }
logging: { level: info }
`;

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
      // scripts/bundle.ts: one file per entry point at its dist path, the code they share in dist/chunks/.
      const entries = [...Object.values(pkg.bin), ...Object.values(pkg.exports)]
        .map((target) => (typeof target === "string" ? target : target.default))
        .filter((path) => path.endsWith(".js"))
        .map((path) => path.replace(/^\.\//, ""));
      const built = files.filter((path) => path.startsWith("dist/") && path.endsWith(".js"));
      expect(built.filter((path) => !path.startsWith("dist/chunks/")).sort()).toEqual(
        [...new Set(entries)].sort(),
      );
      expect(built.filter((path) => path.startsWith("dist/chunks/")).length).toBeGreaterThan(0);
      // tsc: the types of every published source, so a consumer's editor sees the whole API.
      const types = files.filter((path) => path.startsWith("dist/") && path.endsWith(".d.ts"));
      const expected = publishedSources().map((path) =>
        path.replace(/^src\//, "dist/").replace(/\.ts$/, ".d.ts"),
      );
      expect(types.sort()).toEqual(expected.sort());
      for (const target of [...Object.values(pkg.bin), ...Object.values(pkg.exports)]) {
        const path = (typeof target === "string" ? target : target.default).replace(/^\.\//, "");
        expect(files, path).toContain(path);
      }
    },
  );

  // Runs after the pack above, which built dist/: the bin a process manager starts, not tsx and not npm.
  it("the built bin prints its version, and drains and exits 0 on SIGTERM with a final stopped line", async () => {
    const bin = join(ROOT, pkg.bin["x402-gateway"]!);
    expect(execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" })).toBe(
      `${(pkg as unknown as { version: string }).version}\n`,
    );
    const dir = mkdtempSync(join(tmpdir(), "gw-bin-"));
    const file = join(dir, "gateway.yaml");
    writeFileSync(file, GATEWAY_YAML);
    const child = spawn(process.execPath, [bin, "serve", "--config", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const done = collect(child);
    await waitForLine(child, /x402-gateway listening on http:\/\/\S+/);
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/"msg":"draining"/);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      msg: "stopped",
      signal: "SIGTERM",
    });
  });

  // Runs after the pack above, which built dist/: the tarball as a consumer gets it, its dependencies beside it.
  it(
    "the tarball in a consumer project: every export imports by name, the root loads no feature-only package, an error thrown in ./gateway is the root's class, every bin runs",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "gw-consumer-"));
      const [{ filename }] = JSON.parse(
        execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
          cwd: ROOT,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        }),
      ) as [{ filename: string }];
      const installed = join(dir, "node_modules", "x402-gateway");
      mkdirSync(installed, { recursive: true });
      execFileSync("tar", ["xzf", join(dir, filename), "-C", installed, "--strip-components=1"]);
      // What npm would install beside it: the dependencies and peers only (their own resolve where they are).
      for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]) {
        const source = join(ROOT, "node_modules", name);
        if (!existsSync(source)) continue;
        mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
        symlinkSync(source, join(dir, "node_modules", name), "dir");
      }
      writeFileSync(join(dir, "package.json"), '{ "name": "consumer", "private": true, "type": "module" }');
      writeFileSync(
        join(dir, "check.mjs"),
        `const { exports } = (await import("x402-gateway/package.json", { with: { type: "json" } })).default;
const loaded = {};
for (const key of Object.keys(exports)) {
  const name = "x402-gateway" + key.slice(1);
  const module = key.endsWith(".json") ? await import(name, { with: { type: "json" } }) : await import(name);
  loaded[key] = Object.keys(module.default ?? module).length;
}
const root = await import("x402-gateway");
const gateway = await import("x402-gateway/gateway");
const recognition = await import("x402-gateway/recognition");
const config = gateway.parseConfig(${JSON.stringify(GATEWAY_YAML)}, { file: "gateway.yaml", env: {} });
let caught = "nothing thrown";
try {
  gateway.createGateway({ ...config, routes: { "GET /priced": { price: "$0" } } });
} catch (error) {
  caught = error instanceof root.X402OptionsError ? "X402OptionsError" : String(error?.constructor?.name);
}
const shared = Object.keys(recognition).filter((name) => name in root && root[name] !== recognition[name]);
console.log(JSON.stringify({ loaded, caught, shared, schemaId: typeof (await import("x402-gateway/gateway.schema.json", { with: { type: "json" } })).default.$id }));
`,
      );
      const result = JSON.parse(
        execFileSync(process.execPath, ["check.mjs"], { cwd: dir, encoding: "utf8" }),
      ) as {
        loaded: Record<string, number>;
        caught: string;
        shared: string[];
        schemaId: string;
      };
      expect(Object.keys(result.loaded).sort()).toEqual(Object.keys(pkg.exports).sort());
      for (const [key, count] of Object.entries(result.loaded)) expect(count, key).toBeGreaterThan(0);
      expect(result.caught).toBe("X402OptionsError");
      expect(result.shared).toEqual([]);
      expect(result.schemaId).toBe("string");
      // The bundle keeps the feature-only packages behind their dynamic imports, as the sources do.
      const loaded = await packagesLoadedBy(join(installed, "dist/index.js"), dir);
      expect(loaded.has("zod")).toBe(true);
      expect(LAZY_PACKAGES.filter((name) => loaded.has(name))).toEqual([]);
      for (const [name, path] of Object.entries(pkg.bin)) {
        const file = join(installed, path);
        expect(readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n"), name).toBe(true);
        const help = execFileSync(process.execPath, [file, "--help"], { cwd: dir, encoding: "utf8" });
        expect(help, name).toMatch(new RegExp(`^Usage: ${name}`, "m"));
      }
    },
  );

  it("published code imports only dependencies, eagerly or lazily (never a devDependency such as solc, anvil or @x402/*)", () => {
    const allowed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]);
    const offenders: string[] = [];
    for (const path of publishedSources()) {
      const text = readFileSync(join(ROOT, path), "utf8");
      // Static imports, and the lazy ones: `await import("viem")`, `require("ioredis")` (docs/dependencies.md).
      const specifiers = [
        ...text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^"';]*?from\s+"([^"]+)"/gm),
        ...text.matchAll(/\b(?:import|require)\("([^"]+)"\)/g),
      ].map((match) => match[1]);
      for (const specifier of specifiers) {
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
