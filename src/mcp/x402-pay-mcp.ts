#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createPayMcpServer } from "./createPayMcpServer.js";
import { PAYER_ENV } from "./errors.js";
import { KEYSTORE_USAGE, runKeystoreCommand } from "./runKeystoreCommand.js";

const USAGE = `Usage: x402-pay-mcp                 the MCP server (stdio), for an MCP client's mcpServers
       x402-pay-mcp keystore create ...  write a v3 keystore for the payer

The server offers one tool, pay_for_resource { url }: GET the URL and, when it answers 402, pay
its x402 price within the limits set by ${Object.values(PAYER_ENV).join(", ")}.
Diagnostics go to stderr; stdout carries the MCP protocol. See docs/mcp-payer.md.

${KEYSTORE_USAGE}`;

/** This package's version, read beside the built file (dist/mcp → package.json) or the source. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function main(argv: string[]): Promise<number | undefined> {
  if (argv[0] === "keystore") {
    return runKeystoreCommand(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, readStdin });
  }
  if (argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`x402-pay-mcp: unexpected argument ${JSON.stringify(argv[0])}\n\n${USAGE}\n`);
    return 2;
  }
  const server = createPayMcpServer({
    env: process.env,
    version: packageVersion(),
    log: (line) => process.stderr.write(`x402-pay-mcp: ${line}\n`),
  });
  await server.connect(new StdioServerTransport());
  // The client closing stdin ends the session.
  process.stdin.on("end", () => void server.close());
  return undefined;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`x402-pay-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
