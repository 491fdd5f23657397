import { readFileSync, readdirSync } from "node:fs";
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
    "%s starts the bin with npx -y -p x402-gateway and valid settings, only the documented names",
    (name) => {
      const servers = Object.values(read(name).mcpServers);
      expect(servers).toHaveLength(1);
      const [server] = servers;
      expect(server!.command).toBe("npx");
      expect(server!.args).toEqual(["-y", "-p", "x402-gateway", "x402-pay-mcp"]);
      for (const key of Object.keys(server!.env)) expect(Object.values(PAYER_ENV)).toContain(key);
      expect(parsePayerSettings(server!.env)).toMatchObject({ ok: true });
    },
  );

  it("docs/mcp-payer.md shows mcp-servers.json word for word, and every variable", () => {
    expect(docs).toContain(readFileSync(new URL("mcp-servers.json", dir), "utf8").trim());
    for (const name of Object.values(PAYER_ENV)) expect(docs).toContain(`\`${name}\``);
    expect(docs).toContain("npx -y -p x402-gateway x402-pay-mcp");
  });

  it("the local walkthrough imports the key npm start funds (anvil account 1)", () => {
    expect(docs).toContain(`echo ${devAccount(1).privateKey}`);
  });
});
