import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// Spelled in pieces so this file does not name what it looks for.
const OUTSIDE = [".." + "/shared", "X402_" + "SHARED_DIR"];

/** Tracked files plus new ones not ignored: what a commit would hand to a user's clone. */
function repositoryFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return listed.split("\0").filter((path) => path !== "");
}

describe("the repository stands on its own", () => {
  it("no file refers to the shared folder beside the repository or to its environment variable", () => {
    const files = repositoryFiles();
    expect(files).toContain("package.json");
    const offenders = files.filter((path) => {
      let text: string;
      try {
        text = readFileSync(`${ROOT}${path}`, "utf8");
      } catch {
        return false; // a file deleted in the work tree but still tracked
      }
      return OUTSIDE.some((needle) => text.includes(needle));
    });
    expect(offenders).toEqual([]);
  });

  it("the Starknet spec the tests validate against is vendored with its origin noted", () => {
    const note = readFileSync(`${ROOT}test/fixtures/starknet-specs/README.md`, "utf8");
    expect(note).toMatch(/starkware-libs\/starknet-specs/);
    expect(note).toMatch(/v0\.10\.2/);
    const spec = JSON.parse(
      readFileSync(`${ROOT}test/fixtures/starknet-specs/starknet_api_openrpc.v0.10.2.json`, "utf8"),
    ) as { info: { version: string } };
    expect(spec.info.version).toBe("0.10.2");
  });
});
