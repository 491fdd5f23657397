import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** `[file, imported folder/file]` for every relative import of the files under `folders`. */
function importsOf(folders: string[]): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const folder of folders) {
    for (const name of readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })) {
      if (!name.endsWith(".ts")) continue;
      const file = `${folder}/${name}`;
      const text = readFileSync(join(SRC, file), "utf8");
      for (const [, specifier] of text.matchAll(/from\s+"([^"]+)"/g)) {
        if (!specifier!.startsWith(".")) {
          found.push([file, specifier!]);
          continue;
        }
        const resolved = new URL(specifier!, `file:///src/${file}`).pathname.replace(/^\/src\//, "");
        found.push([file, resolved]);
      }
    }
  }
  return found;
}

/** The parts below the paywall core (ARCHITECTURE.md): they never import the layers that compose them. */
const LOWER = ["protocol", "pricing", "facilitator", "ledger", "recognition", "starknet", "common", "payer"];
const UPPER = ["paywall/", "adapters/", "gateway/", "cli/", "config/", "dev/", "mcp/"];
/** What the framework-free core may not know of: the adapters around it and everything that composes it. */
const AROUND_CORE = ["adapters/", "gateway/", "cli/", "config/", "dev/", "mcp/", "staking/"];

/** The folders of `src` and, for each, the other folders its files import (top-level entry files aside). */
function folderGraph(): Map<string, Set<string>> {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const graph = new Map(folders.map((folder) => [folder, new Set<string>()]));
  for (const [file, target] of importsOf(folders)) {
    const from = file.split("/")[0]!;
    const to = target.split("/")[0]!;
    if (to !== from && graph.has(to) && target.includes("/")) graph.get(from)!.add(to);
  }
  return graph;
}

/** Every cycle's folders, as `a → b → … → a`, found by depth-first search. */
function cyclesOf(graph: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (folder: string) => {
    state.set(folder, "open");
    path.push(folder);
    for (const next of graph.get(folder) ?? []) {
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next].join(" → "));
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(folder, "done");
  };
  for (const folder of graph.keys()) if (state.get(folder) === undefined) visit(folder);
  return cycles;
}

describe("import direction", () => {
  it("no module below paywall/ imports from paywall/, adapters/, gateway/, cli/, config/, dev/ or mcp/", () => {
    const upward = importsOf(LOWER).filter(([, target]) => UPPER.some((folder) => target.startsWith(folder)));
    expect(upward).toEqual([]);
  });

  it("the core (paywall/) imports no adapter, nor the gateway, the CLI, config, dev or MCP code", () => {
    const outward = importsOf(["paywall"]).filter(([, target]) =>
      AROUND_CORE.some((folder) => target.startsWith(folder)),
    );
    expect(outward).toEqual([]);
  });

  it("no cycle between folders", () => {
    const graph = folderGraph();
    expect(graph.get("gateway")?.has("paywall")).toBe(true);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("the cycle check can fail", () => {
    const graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
    ]);
    expect(cyclesOf(graph)).toEqual(["a → b → c → a"]);
  });

  it("the pure parts (protocol/, pricing/) import no IO: no node:http/net/fs, Redis, express, nor IO folders except settings schemas", () => {
    const io = importsOf(["protocol", "pricing"]).filter(([, target]) => {
      if (/^(node:)?(http|https|net|fs|fs\/promises|child_process)$/.test(target)) return true;
      if (["ioredis", "express", "better-sqlite3", "pino"].includes(target)) return true;
      const folder = target.split("/")[0]!;
      const isIoFolder = ["facilitator", "ledger", "recognition", "starknet", "staking"].includes(folder);
      return isIoFolder && !/Settings\.js$/.test(target);
    });
    expect(io).toEqual([]);
  });
});
