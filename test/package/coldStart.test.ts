import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LAZY_PACKAGES, packagesLoadedBy } from "../support/packagesLoadedBy.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// Not timed (bench scenario 10 times it): which packages a fresh process loads, a fact that does not drift.
describe("importing the package root", () => {
  it(
    "loads none of the heavy packages a feature needs only when it is used",
    { timeout: 60_000 },
    async () => {
      const loaded = await packagesLoadedBy(join(ROOT, "src/index.ts"), ROOT);
      // The probe sees the packages the root does need: an empty list would mean it saw nothing.
      expect(loaded.has("zod")).toBe(true);
      expect(LAZY_PACKAGES.filter((name) => loaded.has(name))).toEqual([]);
    },
  );

  it(
    "the probe sees a heavy package when a module imports it (the MCP server)",
    { timeout: 60_000 },
    async () => {
      const loaded = await packagesLoadedBy(join(ROOT, "src/mcp/createPayMcpServer.ts"), ROOT);
      expect(loaded.has("@modelcontextprotocol/sdk")).toBe(true);
    },
  );
});
