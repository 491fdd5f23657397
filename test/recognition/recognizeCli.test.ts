import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runRecognize } from "../../src/cli/recognize.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

const KNOWN = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
const UNKNOWN = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2";
const CONTRACT = "0x0777";

let server: StarknetRpcServer;
beforeEach(async () => {
  server = await startStarknetRpcServer({
    call: ({ calldata }) => [calldata[0] === KNOWN.toLowerCase() ? "0x1" : "0x0"],
  });
});
afterEach(async () => {
  expect(server.validationFailures).toEqual([]);
  await server.close();
});

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runRecognize(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("x402-gateway recognize", () => {
  it("prints 0x1 for a recognized payer and 0x0 for another", async () => {
    expect(await run([KNOWN, "--rpc-url", server.url, "--contract", CONTRACT])).toEqual({
      code: 0,
      stdout: "0x1\n",
      stderr: "",
    });
    expect(await run([UNKNOWN, "--rpc-url", server.url, "--contract", CONTRACT])).toMatchObject({
      code: 0,
      stdout: "0x0\n",
    });
    // --rpc is the same as --rpc-url (the form npm start prints).
    expect(await run([KNOWN, "--rpc", server.url, "--contract", CONTRACT])).toMatchObject({
      code: 0,
      stdout: "0x1\n",
    });
    // A layer-2 account (a felt wider than an EVM address), as a Starknet-signed CBOR payer is recorded.
    const account = `0x0${"4a1".repeat(21)}`;
    expect(await run([account, "--rpc", server.url, "--contract", CONTRACT])).toMatchObject({
      code: 0,
      stdout: "0x0\n",
    });
    expect(server.calls().at(-1)!.calldata).toEqual([`0x${"4a1".repeat(21)}`]);
    // The endpoint itself, as npm start's banner prints the layer-2 node (with or without a final slash).
    for (const endpoint of [`${server.url}/rpc/v0_10`, `${server.url}/rpc/v0_10/`]) {
      expect(await run([KNOWN, "--rpc", endpoint, "--contract", CONTRACT, "--verbose"])).toMatchObject({
        code: 0,
        stdout: "0x1\n",
        stderr: expect.stringContaining(`> POST ${server.url}/rpc/v0_10\n`),
      });
    }
    expect(server.calls().map((call) => [call.contractAddress, call.calldata])).toEqual([
      ["0x777", [KNOWN.toLowerCase()]],
      ["0x777", [UNKNOWN.toLowerCase()]],
      ["0x777", [KNOWN.toLowerCase()]],
      ["0x777", [`0x${"4a1".repeat(21)}`]],
      ["0x777", [KNOWN.toLowerCase()]],
      ["0x777", [KNOWN.toLowerCase()]],
    ]);
  });

  it("prints the raw JSON-RPC exchange with --verbose", async () => {
    const { code, stdout, stderr } = await run([
      KNOWN,
      "--rpc-url",
      server.url,
      "--contract",
      CONTRACT,
      "--verbose",
    ]);
    expect([code, stdout]).toEqual([0, "0x1\n"]);
    expect(stderr).toContain(`> POST ${server.url}/rpc/v0_10`);
    expect(stderr).toMatch(
      /> \{"jsonrpc":"2.0","id":\d+,"method":"starknet_call","params":\[\{"contract_address":"0x[0-9a-f]+","entry_point_selector":"0x3600a7e6d7c7be91e03409ac690f0f4547fdb0f5147af3fcd4cc9ef9bbfbf35","calldata":\["0x[0-9a-f]+"\]\},"latest"\]\}/,
    );
    expect(stderr).toMatch(/< HTTP 200 \{"jsonrpc":"2.0","id":\d+,"result":\["0x1"\]\}/);
  });

  it("exits 1 naming the failure when the node refuses or does not answer", async () => {
    server.setMode({ rpcError: 20 });
    const notFound = await run([KNOWN, "--rpc-url", server.url, "--contract", CONTRACT]);
    expect([notFound.code, notFound.stdout]).toEqual([1, ""]);
    expect(notFound.stderr).toMatch(/contract_not_found/);
    server.setMode("hang");
    const hung = await run([KNOWN, "--rpc-url", server.url, "--contract", CONTRACT, "--timeout-ms", "100"]);
    expect(hung.code).toBe(1);
    expect(hung.stderr).toMatch(/transport: no answer .* within 100 ms/);
  });

  it("prints its help, and exits 2 on usage errors", async () => {
    const help = await run(["--help"]);
    expect([help.code, help.stdout]).toEqual([
      0,
      expect.stringContaining("Usage: x402-gateway recognize <payer>"),
    ]);
    for (const argv of [
      [],
      [KNOWN, "--contract", CONTRACT],
      [KNOWN, "--rpc-url", server.url],
      ["1234", "--rpc-url", server.url, "--contract", CONTRACT],
      ["0xnothex", "--rpc-url", server.url, "--contract", CONTRACT],
      [`0x${"f".repeat(64)}`, "--rpc-url", server.url, "--contract", CONTRACT], // past the field prime
      [KNOWN, "--rpc-url", server.url, "--contract", "nope"],
      [KNOWN, "--rpc-url", "http://rpc.example.com", "--contract", CONTRACT],
      [KNOWN, "--rpc-url", server.url, "--contract", CONTRACT, "--timeout-ms", "soon"],
      [KNOWN, "--rpc-url", server.url, "--contract", CONTRACT, "--bogus"],
      [KNOWN, "--rpc-url", server.url, "--rpc", server.url, "--contract", CONTRACT],
    ]) {
      const result = await run(argv);
      expect([argv, result.code]).toEqual([argv, 2]);
      expect(result.stderr).toContain("Usage:");
    }
    expect(server.requests).toEqual([]);
  });
});
