import { readFileSync, readdirSync } from "node:fs";
import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { PAYER_ENV } from "../../src/mcp/errors.js";
import { parsePayerSettings } from "../../src/mcp/parsePayerSettings.js";

const dir = new URL("../../examples/mcp/", import.meta.url);
const files = readdirSync(dir).filter((name) => name.endsWith(".json"));
const read = (name: string) =>
  JSON.parse(readFileSync(new URL(name, dir), "utf8")) as {
    mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
  };
const docs = readFileSync(new URL("../../docs/mcp-payer.md", import.meta.url), "utf8");
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  bin: Record<string, string>;
};

describe("examples/mcp", () => {
  it("holds the three documented configurations", () => {
    expect(files.sort()).toEqual([
      "mcp-servers.base-mainnet.json",
      "mcp-servers.json",
      "mcp-servers.local.json",
    ]);
    for (const name of files) expect(docs).toContain(name);
  });

  it.each(files)(
    "%s starts the built bin of a clone with node and an absolute path, with valid settings, only the documented names",
    (name) => {
      const servers = Object.values(read(name).mcpServers);
      expect(servers).toHaveLength(1);
      const [server] = servers;
      expect(server!.command).toBe("node");
      expect(server!.args).toHaveLength(1);
      // The package's own bin, inside a clone: never a registry name.
      expect(isAbsolute(server!.args[0]!)).toBe(true);
      expect(server!.args[0]!.endsWith(`/${pkg.bin["x402-pay-mcp"]!.replace(/^\.\//, "")}`)).toBe(true);
      for (const key of Object.keys(server!.env)) expect(Object.values(PAYER_ENV)).toContain(key);
      expect(parsePayerSettings(server!.env)).toMatchObject({ ok: true });
    },
  );

  it("docs/mcp-payer.md shows mcp-servers.json word for word, and every variable", () => {
    expect(docs).toContain(readFileSync(new URL("mcp-servers.json", dir), "utf8").trim());
    for (const name of Object.values(PAYER_ENV)) expect(docs).toContain(`\`${name}\``);
  });

  it("no launch in the docs, the examples or the README uses the unpublished registry name, and the docs say so", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const readmeMcp =
      /^## Quickstart: paying from an agent \(MCP\)$[\s\S]*?(?=^## )/m.exec(readme)?.[0] ?? "";
    expect(readmeMcp).toContain("not published on the\nnpm registry");
    const examples = files.map((name) => readFileSync(new URL(name, dir), "utf8")).join("\n");
    // `npx x402-gateway`, `npx -y -p x402-gateway …`, `npm exec x402-gateway`: whoever registers the name runs.
    const registryLaunch = /\b(npx|npm exec|npm x)\b[^\n`]*?(?<![\w/.-])x402-gateway(?![\w/.-])/;
    for (const [where, text] of [
      ["docs/mcp-payer.md", docs],
      ["README.md", readmeMcp],
      ["examples/mcp", examples],
    ] as const)
      expect(text, where).not.toMatch(registryLaunch);
    expect(docs).toMatch(/not published on the npm registry/);
    expect(docs).toContain("node /home/you/x402-gateway/dist/mcp/x402-pay-mcp.js");
    expect(docs).toMatch(/npx -y -p \/home\/you\/x402-gateway\/x402-gateway-\d+\.\d+\.\d+\.tgz x402-pay-mcp/);
  });

  it("the local walkthrough imports the key npm start funds (anvil account 1)", () => {
    expect(docs).toContain(`echo ${devAccount(1).privateKey}`);
  });
});
