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

/** The parts below the middleware (ARCHITECTURE.md): they never import the layers that compose them. */
const LOWER = ["protocol", "pricing", "facilitator", "ledger", "recognition", "starknet", "common"];
const UPPER = ["middleware/", "proxy/", "cli/", "config/", "dev/", "mcp/"];

describe("import direction", () => {
  it("no module below middleware/ imports from middleware/, proxy/, cli/, config/, dev/ or mcp/", () => {
    const upward = importsOf(LOWER).filter(([, target]) => UPPER.some((folder) => target.startsWith(folder)));
    expect(upward).toEqual([]);
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
