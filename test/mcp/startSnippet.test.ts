import { exec } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createPublicClient, erc20Abi, http, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { Address } from "@solana/kit";
import { devAccount } from "../../src/dev/devAccounts.js";
import { solanaDevAccount } from "../../src/dev/solanaDevAccounts.js";
import { associatedTokenAddress } from "../../src/dev/solanaEngine/splAccounts.js";
import type { McpServersSnippet } from "../../src/cli/start/agentPayLines.js";
import { collect, ROOT, spawnCli, waitForLine } from "../cli/support/runCli.js";

describe("npm start's agent lines", () => {
  it("prints an mcpServers entry that, started exactly as printed, pays a priced route; and a --delegate CBOR command that pays", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-start-mcp-"));
    const child = spawnCli("src/cli/start.ts", ["--data", join(dir, "staking.sqlite")], {
      X402_GATEWAY_PORT: "0",
    });
    const done = collect(child);
    try {
      const [banner, anvil, json, delegate] = await waitForLine(
        child,
        /anvil +(http:\/\/\S+)[\s\S]*?mcpServers config[^\n]*\n[^\n]*\n(\{\n[\s\S]*?\n\})\n[\s\S]*?^ {2}(npm run pay -- --cbor \S+ --facilitator \S+ --delegate)$[\s\S]*Ctrl-C stops everything/m,
        "the mcpServers snippet and the delegate command",
      );
      expect(banner).toBeDefined();
      const snippet = JSON.parse(json!) as McpServersSnippet;
      const [name, server] = Object.entries(snippet.mcpServers)[0]!;
      expect(name).toBe("x402-payer-local");
      // Absolute paths only: an MCP client starts it from anywhere.
      expect(server.command).toBe(process.execPath);
      expect(server.args.at(-1)).toBe(join(ROOT, "src/mcp/x402-pay-mcp.ts"));
      expect(server.env).toMatchObject({
        PAY_MCP_EVM_KEYSTORE_PATH: join(dir, "mcp-payer.json"),
        PAY_MCP_EVM_PASSWORD_PATH: join(dir, "mcp-payer.pass"),
        PAY_MCP_EVM_NETWORKS: "eip155:31337",
        PAY_MCP_EVM_ASSETS: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
        PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
      });
      for (const file of ["mcp-payer.json", "mcp-payer.pass"])
        expect((await stat(join(dir, file))).mode & 0o777, file).toBe(0o600);

      const token = server.env.PAY_MCP_EVM_ASSETS!;
      const chain = createPublicClient({ transport: http(anvil) });
      const balance = (owner: string) =>
        chain.readContract({
          address: token as Hex,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [owner as Hex],
        });
      const payee = server.env.PAY_MCP_EVM_PAYEES!;
      const before = { payee: await balance(payee), payer: await balance(devAccount(1).address) };

      const gateway = /^(http:\/\/127\.0\.0\.1:\d+)/.exec(delegate!.split(" ")[5]!)![1]!;
      const structured = await payAs(server, `${gateway}/api/apy`);
      expect(structured).toMatchObject({ outcome: "paid", network: "eip155:31337", payee, asset: token });
      expect((structured.resource as { body: string }).body).toContain('"apyPercent"');
      const receipt = await chain.getTransactionReceipt({ hash: structured.transaction as Hex });
      expect(receipt.status).toBe("success");
      expect(structured.payer).toBe(devAccount(1).address);
      const amount = BigInt(structured.amount as string);
      expect(await balance(payee)).toBe(before.payee + amount);
      expect(await balance(devAccount(1).address)).toBe(before.payer - amount);

      // The Solana entry: the LOCAL engine payer's keypair file pays the route's Solana option.
      const solana = snippet.mcpServers["x402-payer-local-solana"]!;
      expect(solana.env).toMatchObject({
        PAY_MCP_SVM_KEYPAIR_PATH: join(dir, "solana-payer.json"),
        PAY_MCP_SVM_RPC_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/?$/),
        PAY_MCP_EVM_NETWORKS: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      });
      const solanaPayer = (await solanaDevAccount("payer")).address;
      const splBalance = async (owner: string) => {
        const account = await associatedTokenAddress(
          owner as Address,
          solana.env.PAY_MCP_EVM_ASSETS as Address,
        );
        const answer = await fetch(solana.env.PAY_MCP_SVM_RPC_URL!, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "getTokenAccountBalance",
            params: [account],
          }),
        });
        const body = (await answer.json()) as { result?: { value: { amount: string } } };
        return BigInt(body.result?.value.amount ?? "0");
      };
      const solPayee = solana.env.PAY_MCP_EVM_PAYEES!;
      const solBefore = { payee: await splBalance(solPayee), payer: await splBalance(solanaPayer) };
      const solPaid = await payAs(solana, `${gateway}/api/apy`);
      expect(solPaid).toMatchObject({
        outcome: "paid",
        network: solana.env.PAY_MCP_EVM_NETWORKS,
        payer: solanaPayer,
      });
      const solAmount = BigInt(solPaid.amount as string);
      expect(await splBalance(solPayee)).toBe(solBefore.payee + solAmount);
      expect(await splBalance(solanaPayer)).toBe(solBefore.payer - solAmount);

      const paid = await promisify(exec)(delegate!, {
        cwd: ROOT,
        env: { ...process.env, npm_config_loglevel: "error" },
      });
      expect(paid.stdout).toMatch(/^agent: ed25519:[0-9a-f]{64} \(fresh key\)/m);
      expect(paid.stdout).toContain("status: 200 OK");
      expect(paid.stdout).toContain("receipt signature: valid");
    } finally {
      child.kill("SIGINT");
      await done;
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/** One `pay_for_resource` call exactly as an MCP client would make it: the command, the args, the env, from another folder. */
async function payAs(
  server: McpServersSnippet["mcpServers"][string],
  url: string,
): Promise<Record<string, unknown>> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    cwd: tmpdir(),
    stderr: "pipe",
  });
  const client = new Client({ name: "snippet-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "pay_for_resource", arguments: { url } }, undefined, {
      timeout: 120_000,
    });
    return result.structuredContent as Record<string, unknown>;
  } finally {
    await client.close();
  }
}
