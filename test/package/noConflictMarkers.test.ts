import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
// Written in two parts so that this file does not match itself.
const MARKER = new RegExp(`^\\s*(${"<".repeat(7)} |${">".repeat(7)} |\\|? ?${"=".repeat(7)}\\s*\\|?$)`, "m");

describe("the repository", () => {
  it("holds no merge conflict markers (prettier formats them as text, so nothing else would notice)", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter((file) => /\.(ts|js|mjs|md|json|ya?ml|sh)$/.test(file) && !file.startsWith("test/fixtures/"));
    expect(files.length).toBeGreaterThan(100);
    const marked = files.filter((file) => {
      try {
        return MARKER.test(readFileSync(join(ROOT, file), "utf8"));
      } catch {
        return false;
      }
    });
    expect(marked).toEqual([]);
  });

  it("its check finds a marker where there is one", () => {
    expect(MARKER.test(`a\n${"<".repeat(7)} HEAD\nb`)).toBe(true);
    expect(MARKER.test(`| ${"=".repeat(7)}            |`)).toBe(true);
    expect(MARKER.test("a === b\n// ======= section")).toBe(false);
  });
});
