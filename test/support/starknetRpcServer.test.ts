import { afterEach, describe, expect, it } from "vitest";
import { RpcProvider } from "starknet";
import { selectorOf, startStarknetRpcServer, type StarknetRpcServer } from "./starknetRpcServer.js";

const EST_OUVERTE = "0x3600a7e6d7c7be91e03409ac690f0f4547fdb0f5147af3fcd4cc9ef9bbfbf35";
const CONTRACT = "0x4a1b2c3d";

let server: StarknetRpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function rpc(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/rpc/v0_10`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function callBody(params: unknown, id: number | string = 1) {
  return { jsonrpc: "2.0", id, method: "starknet_call", params };
}

describe("startStarknetRpcServer", () => {
  it("computes selectors with starknet_keccak", () => {
    expect(selectorOf("est_ouverte")).toBe(EST_OUVERTE);
  });

  it("refuses starknet.js's default by-name params for starknet_call (the seed's form is positional)", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const provider = new RpcProvider({ nodeUrl: `${server.url}/rpc/v0_10` });
    await expect(
      provider.callContract(
        { contractAddress: CONTRACT, entrypoint: "est_ouverte", calldata: ["0xabc"] },
        "latest",
      ),
    ).rejects.toThrow(/positional/);
    expect(server.calls()).toEqual([]);
    expect(server.validationFailures).toEqual([
      expect.objectContaining({
        kind: "request",
        method: "starknet_call",
        errors: [expect.stringMatching(/positional/)],
      }),
    ]);
  });

  it("accepts positional params", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const { json } = await rpc(
      server.url,
      callBody([
        { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: ["0x1"] },
        "latest",
      ]),
    );
    expect(json).toEqual({ jsonrpc: "2.0", id: 1, result: ["0x1"] });
    expect(server.validationFailures).toEqual([]);
  });

  it("answers specVersion, chainId and blockNumber", async () => {
    server = await startStarknetRpcServer({ blockNumber: 7 });
    expect(
      (await rpc(server.url, { jsonrpc: "2.0", id: 1, method: "starknet_specVersion" })).json.result,
    ).toBe("0.10.2");
    expect(
      (await rpc(server.url, { jsonrpc: "2.0", id: 2, method: "starknet_chainId", params: [] })).json.result,
    ).toBe("0x534e5f5345504f4c4941");
    expect(
      (await rpc(server.url, { jsonrpc: "2.0", id: 3, method: "starknet_blockNumber" })).json.result,
    ).toBe(7);
    expect(server.validationFailures).toEqual([]);
  });

  it.each([
    [
      "a felt with a leading zero",
      callBody([
        { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: ["0x01"] },
        "latest",
      ]),
    ],
    [
      "an unknown block tag",
      callBody([{ contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] }, "newest"]),
    ],
    [
      "a missing param",
      callBody({ request: { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] } }),
    ],
    [
      "an unknown param name",
      callBody({
        request: { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] },
        block_id: "latest",
        extra: 1,
      }),
    ],
    [
      "too many positional params",
      callBody([
        { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] },
        "latest",
        3,
      ]),
    ],
    [
      "a missing calldata",
      callBody([{ contract_address: CONTRACT, entry_point_selector: EST_OUVERTE }, "latest"]),
    ],
  ])("refuses %s with -32602 and records it", async (_name, body) => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const { json } = await rpc(server.url, body);
    expect((json.error as { code: number }).code).toBe(-32602);
    expect(server.validationFailures).toHaveLength(1);
    expect(server.validationFailures[0]?.kind).toBe("request");
    expect(server.calls()).toEqual([]);
  });

  it("refuses a non-JSON-RPC envelope, an unknown method and a wrong path", async () => {
    server = await startStarknetRpcServer();
    expect((await rpc(server.url, { id: 1, method: "starknet_call" })).json.error).toMatchObject({
      code: -32600,
    });
    expect(
      (await rpc(server.url, { jsonrpc: "2.0", id: 1, method: "starknet_nope" })).json.error,
    ).toMatchObject({
      code: -32601,
    });
    const wrongPath = await fetch(`${server.url}/rpc/v0_9`, { method: "POST", body: "{}" });
    expect(wrongPath.status).toBe(404);
    expect(server.validationFailures).toHaveLength(3);
  });

  it("turns a result that breaks the spec into -32603 and records it", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x01"] });
    const { json } = await rpc(
      server.url,
      callBody([{ contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] }, "latest"]),
    );
    expect(json.error).toMatchObject({ code: -32603 });
    expect(server.validationFailures.map((failure) => failure.kind)).toEqual(["response"]);
  });

  it("passes handler errors through when the spec declares them", async () => {
    server = await startStarknetRpcServer({
      call: () => ({ error: { code: 40, message: "Contract error", data: { revert_error: "nope" } } }),
    });
    const { json } = await rpc(
      server.url,
      callBody([{ contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] }, "latest"]),
    );
    expect(json.error).toEqual({ code: 40, message: "Contract error", data: { revert_error: "nope" } });
    expect(server.validationFailures).toEqual([]);
  });

  it.each([20, 21, 24, 40, -32601])("answers every call with error %i in rpcError mode", async (code) => {
    server = await startStarknetRpcServer({ call: () => ["0x1"], mode: { rpcError: code } });
    const { json } = await rpc(
      server.url,
      callBody([{ contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] }, "latest"]),
    );
    expect((json.error as { code: number }).code).toBe(code);
    expect(server.validationFailures).toEqual([]);
  });

  it("switches to HTTP 500, garbage and back at runtime", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const body = callBody([
      { contract_address: CONTRACT, entry_point_selector: EST_OUVERTE, calldata: [] },
      "latest",
    ]);
    const post = () =>
      fetch(`${server!.url}/rpc/v0_10`, { method: "POST", body: JSON.stringify(body) }).then(
        async (response) => ({
          status: response.status,
          text: await response.text(),
        }),
      );
    server.setMode("http500");
    expect((await post()).status).toBe(500);
    server.setMode("garbage");
    const garbage = await post();
    expect(garbage.status).toBe(200);
    expect(() => JSON.parse(garbage.text) as unknown).toThrow();
    server.setMode("normal");
    expect(JSON.parse((await post()).text)).toMatchObject({ result: ["0x1"] });
    expect(server.requests).toHaveLength(3);
  });

  it("hangs until the client gives up, and still closes", async () => {
    server = await startStarknetRpcServer({ mode: "hang" });
    const request = fetch(`${server.url}/rpc/v0_10`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "starknet_chainId" }),
      signal: AbortSignal.timeout(100),
    });
    await expect(request).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });

  it("answers batches element by element", async () => {
    server = await startStarknetRpcServer();
    const { json } = await rpc(server.url, [
      { jsonrpc: "2.0", id: 1, method: "starknet_chainId" },
      { jsonrpc: "2.0", id: 2, method: "starknet_blockNumber" },
    ]);
    expect(json).toEqual([
      { jsonrpc: "2.0", id: 1, result: "0x534e5f5345504f4c4941" },
      { jsonrpc: "2.0", id: 2, result: 1000 },
    ]);
  });

  it("serves extra spec methods and validates their results", async () => {
    server = await startStarknetRpcServer({
      methods: {
        starknet_getClassHashAt: ({ contract_address }) => (contract_address === CONTRACT ? "0x123" : 5),
      },
    });
    const ok = await rpc(server.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "starknet_getClassHashAt",
      params: { block_id: "latest", contract_address: CONTRACT },
    });
    expect(ok.json.result).toBe("0x123");
    const bad = await rpc(server.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "starknet_getClassHashAt",
      params: { block_id: "latest", contract_address: "0x5" },
    });
    expect(bad.json.error).toMatchObject({ code: -32603 });
    expect(server.validationFailures.map((failure) => failure.kind)).toEqual(["response"]);
  });
});
