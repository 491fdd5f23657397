import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/loadConfig.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(join(ROOT, "README.md"), "utf8");

describe("the README", () => {
  it("fits on a screen: at most 15 KB, the manual is in docs/", () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_000);
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });

  it("every TypeScript block is an examples/ file word for word, so tsc checks it as printed and a test runs it", () => {
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
    const examples = readdirSync(join(ROOT, "examples"), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => readFileSync(join(ROOT, "examples", file), "utf8").trim());
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) expect(examples, block.slice(0, 120)).toContain(block);
  });

  it("its gateway quickstart config is a valid config", () => {
    const block = /## Quickstart: the gateway[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const config = parseConfig(block!, { file: "README.md", env: {} });
    expect(Object.keys(config.routes)).toEqual(["GET /api/apy", "POST /api/stake"]);
    expect(config.routes["POST /api/stake"]?.settle).toBe("before");
  });

  it("its mcpServers snippet is examples/mcp/mcp-servers.local.json, word for word (the MCP suite pays with it)", () => {
    const example = readFileSync(join(ROOT, "examples/mcp/mcp-servers.local.json"), "utf8");
    expect(readme).toContain(example.trim());
  });
});
