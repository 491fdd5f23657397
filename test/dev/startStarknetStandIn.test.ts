import Database from "better-sqlite3";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { RpcProvider } from "starknet";
import { afterEach, describe, expect, it } from "vitest";
import { StarknetRecognizer } from "../../src/recognition/StarknetRecognizer.js";
import { selectorOf } from "../../src/starknet/StarknetRpc.js";
import {
  STAND_IN_CHAIN_ID,
  STAND_IN_REGISTRY_CONTRACT,
  startStarknetStandIn,
  type RunningStarknetStandIn,
} from "../../src/dev/startStarknetStandIn.js";
import { answerStarknetRpc, blockHashOf } from "../../src/dev/starknetStandIn/answerStarknetRpc.js";
import { RecognitionRegistry } from "../../src/dev/starknetStandIn/RecognitionRegistry.js";
import { starknetDevAccount } from "../../src/dev/starknetDevAccounts.js";
import { specResponseProblems } from "../support/starknetRpcServer.js";

const PAYER = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
const OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const EST_OUVERTE_SELECTOR = selectorOf("est_ouverte");

const running: RunningStarknetStandIn[] = [];
afterEach(async () => {
  for (const node of running.splice(0)) await node.stop();
});

async function standIn(file?: string): Promise<RunningStarknetStandIn> {
  const node = await startStarknetStandIn({ file });
  running.push(node);
  return node;
}

async function post(node: RunningStarknetStandIn, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(node.rpcUrl, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

const rpc = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const estOuverteCall = (payer: string, contract = STAND_IN_REGISTRY_CONTRACT) => ({
  contract_address: contract,
  entry_point_selector: EST_OUVERTE_SELECTOR,
  calldata: [payer.toLowerCase()],
});
const estOuverte = (payer: string, blockId: unknown = "latest", contract = STAND_IN_REGISTRY_CONTRACT) =>
  rpc("starknet_call", [estOuverteCall(payer, contract), blockId]);

describe("the local layer-2 stand-in (startStarknetStandIn)", () => {
  it("answers est_ouverte 0x0, then 0x1 once the payer is recorded, in the envelope of the seed's curl", async () => {
    const node = await standIn();
    expect(await post(node, estOuverte(PAYER))).toEqual({
      status: 200,
      json: { jsonrpc: "2.0", id: 1, result: ["0x0"] },
    });
    expect(node.record(PAYER)).toBe(1);
    expect(node.record(PAYER.toLowerCase())).toBe(1); // once only: no new block
    // The curl, byte for byte as a user would type it (no content-type header).
    const curl = `{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"${node.contract}","entry_point_selector":"${EST_OUVERTE_SELECTOR}","calldata":["${PAYER.toLowerCase()}"]},"latest"]}`;
    const answer = await fetch(node.rpcUrl, { method: "POST", body: curl });
    expect(await answer.text()).toBe('{"jsonrpc":"2.0","id":1,"result":["0x1"]}');
    expect(await post(node, estOuverte(OTHER))).toMatchObject({ json: { result: ["0x0"] } });
    expect(node.recorded()).toEqual([
      {
        contract: node.contract,
        payer: PAYER.toLowerCase(),
        block: 1,
        recordedAt: expect.any(Number) as number,
      },
    ]);
  });

  it("keeps one registry per resource: a payer recorded in one contract is 0x0 in another", async () => {
    const node = await standIn();
    const other = node.deployRegistry("GET /api/other");
    expect(other).not.toBe(node.contract);
    expect(node.deployRegistry("GET /api/other")).toBe(other); // the same address on every start
    node.record(PAYER);
    expect(await post(node, estOuverte(PAYER, "latest", other))).toMatchObject({ json: { result: ["0x0"] } });
    node.record(OTHER, other);
    expect(await post(node, estOuverte(OTHER, "latest", other))).toMatchObject({ json: { result: ["0x1"] } });
    expect(await post(node, estOuverte(OTHER))).toMatchObject({ json: { result: ["0x0"] } });
    // A layer-2 account (a felt wider than an EVM address) is recorded as itself.
    const account = "0x4a1" + "b".repeat(58);
    node.record(account, other);
    expect(await post(node, estOuverte(account, "latest", other))).toMatchObject({
      json: { result: ["0x1"] },
    });
    expect(() => node.record(PAYER, "0x0456abc")).toThrow(/no registry contract/);
    expect(await post(node, estOuverte(PAYER, "latest", "0x0456abc"))).toMatchObject({
      json: { error: { code: 20 } },
    });
  });

  it("moves the payers of a file written before registries had contracts into the default one", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "standin-")), "layer2.sqlite");
    const old = new Database(file);
    old.exec(
      "CREATE TABLE recorded (payer TEXT PRIMARY KEY, block INTEGER NOT NULL, recorded_at INTEGER NOT NULL)",
    );
    old.prepare("INSERT INTO recorded VALUES (?, 1, 0)").run(PAYER.toLowerCase());
    old.close();
    const node = await standIn(file);
    expect(await post(node, estOuverte(PAYER))).toMatchObject({ json: { result: ["0x1"] } });
    expect(node.record(OTHER)).toBe(2);
  });

  it("every answer of every method it serves matches the vendored OpenRPC document (results and errors)", async () => {
    const node = await standIn();
    node.record(PAYER);
    const head = { block_number: 1 };
    const cases: Array<[method: string, params: unknown, expected: "result" | number]> = [
      ["starknet_specVersion", [], "result"],
      ["starknet_chainId", undefined, "result"],
      ["starknet_syncing", [], "result"],
      ["starknet_blockNumber", [], "result"],
      ["starknet_blockHashAndNumber", {}, "result"],
      ["starknet_getClassHashAt", ["latest", node.contract], "result"],
      ["starknet_getClassHashAt", { block_id: head, contract_address: node.contract }, "result"],
      ["starknet_getClassHashAt", ["latest", "0x123"], 20],
      ["starknet_getClassHashAt", [{ block_number: 9 }, node.contract], 24],
      ["starknet_call", estOuverte(PAYER).params, "result"],
      ["starknet_call", estOuverte(OTHER, { block_hash: blockHashOf(1) }).params, "result"],
      ["starknet_call", { request: estOuverteCall(PAYER), block_id: "pre_confirmed" }, "result"],
      ["starknet_call", estOuverte(PAYER, "latest", "0x0456abc").params, 20],
      [
        "starknet_call",
        [
          { contract_address: node.contract, entry_point_selector: selectorOf("balance_of"), calldata: [] },
          "latest",
        ],
        21,
      ],
      [
        "starknet_call",
        [
          { contract_address: node.contract, entry_point_selector: EST_OUVERTE_SELECTOR, calldata: [] },
          "latest",
        ],
        40,
      ],
      ["starknet_call", estOuverte(PAYER, { block_number: 2 }).params, 24],
      ["starknet_call", estOuverte(PAYER, { block_hash: "0x1234" }).params, 24],
      ["starknet_call", [{ contract_address: node.contract }, "latest"], -32602],
    ];
    for (const [method, params, expected] of cases) {
      const { status, json } = await post(node, rpc(method, params));
      expect(status, method).toBe(200);
      expect(specResponseProblems(method, json), `${method} ${JSON.stringify(params)}`).toEqual([]);
      if (expected === "result") expect(json, method).toHaveProperty("result");
      else expect((json as { error: { code: number } }).error.code, method).toBe(expected);
    }
    const { json } = await post(node, rpc("starknet_chainId"));
    expect(json).toEqual({ jsonrpc: "2.0", id: 1, result: STAND_IN_CHAIN_ID });
  });

  it("answers as the chain did at an older block (by number or hash)", async () => {
    const node = await standIn();
    node.record(OTHER);
    node.record(PAYER); // block 2
    const at = async (blockId: unknown) =>
      ((await post(node, estOuverte(PAYER, blockId))).json as { result: string[] }).result[0];
    expect(await at({ block_number: 1 })).toBe("0x0");
    expect(await at({ block_number: 2 })).toBe("0x1");
    expect(await at({ block_hash: blockHashOf(1) })).toBe("0x0");
    expect(await at("latest")).toBe("0x1");
    const { json } = await post(node, rpc("starknet_blockHashAndNumber"));
    expect(json).toMatchObject({ result: { block_number: 2, block_hash: blockHashOf(2) } });
  });

  it("keeps recorded payers in its file across a restart", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "standin-")), "layer2.sqlite");
    const first = await standIn(file);
    first.record(PAYER);
    await first.stop();
    running.splice(running.indexOf(first), 1);
    const second = await standIn(file);
    expect(await post(second, estOuverte(PAYER))).toMatchObject({ json: { result: ["0x1"] } });
    expect(second.record(OTHER)).toBe(2);
  });

  it("is read by the project's recognizer and by starknet.js's RpcProvider", async () => {
    const node = await standIn();
    const recognizer = new StarknetRecognizer({ rpcUrl: node.url, contract: node.contract });
    expect(await recognizer.isRecognized(PAYER)).toBe(false);
    node.record(PAYER);
    expect(await recognizer.isRecognized(PAYER)).toBe(true);
    expect(await recognizer.isRecognized(OTHER)).toBe(false);

    const provider = new RpcProvider({ nodeUrl: node.rpcUrl });
    expect(await provider.getChainId()).toBe(STAND_IN_CHAIN_ID);
    expect(await provider.getBlockNumber()).toBe(1);
    const result = await provider.callContract(
      { contractAddress: node.contract, entrypoint: "est_ouverte", calldata: [PAYER.toLowerCase()] },
      "latest",
    );
    expect(result).toEqual(["0x1"]);
    expect(node.calls.get("starknet_call")).toBe(4);
  });

  // Hostile bodies: each is refused with the JSON-RPC error a node gives, and nothing is recorded.
  const HOSTILE: Array<[name: string, body: string, status: number, code: number | undefined]> = [
    ["not JSON", "{", 200, -32700],
    ["empty body", "", 200, -32700],
    ["a bare number", "42", 200, -32600],
    ["an empty batch", "[]", 200, -32600],
    ["jsonrpc 1.0", '{"jsonrpc":"1.0","id":1,"method":"starknet_chainId"}', 200, -32600],
    ["method not a string", '{"jsonrpc":"2.0","id":1,"method":7}', 200, -32600],
    ["id an object", '{"jsonrpc":"2.0","id":{},"method":"starknet_chainId"}', 200, -32600],
    ["unknown method", '{"jsonrpc":"2.0","id":1,"method":"starknet_addDeclareTransaction"}', 200, -32601],
    ["__proto__ as method", '{"jsonrpc":"2.0","id":1,"method":"__proto__"}', 200, -32601],
    ["constructor as method", '{"jsonrpc":"2.0","id":1,"method":"constructor"}', 200, -32601],
    ["params a string", '{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":"x"}', 200, -32602],
    ["missing block_id", '{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{}]}', 200, -32602],
    ["extra positional", '{"jsonrpc":"2.0","id":1,"method":"starknet_chainId","params":[1]}', 200, -32602],
    [
      "unknown named param",
      '{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber","params":{"x":1}}',
      200,
      -32602,
    ],
    [
      "felt above the field prime",
      `{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"0x${"f".repeat(64)}","entry_point_selector":"0x1","calldata":[]},"latest"]}`,
      200,
      -32602,
    ],
    [
      "calldata not an array",
      `{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"0x1","entry_point_selector":"0x1","calldata":"0x1"},"latest"]}`,
      200,
      -32602,
    ],
    [
      "negative block number",
      `{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"0x1","entry_point_selector":"0x1","calldata":[]},{"block_number":-1}]}`,
      200,
      -32602,
    ],
    [
      "unknown block tag",
      '{"jsonrpc":"2.0","id":1,"method":"starknet_getClassHashAt","params":["pending","0x1"]}',
      200,
      -32602,
    ],
    ["a notification only", '{"jsonrpc":"2.0","method":"starknet_chainId"}', 204, undefined],
    ["over 1 MiB", `"${"a".repeat(1024 * 1024 + 1)}"`, 413, undefined],
  ];
  it.each(HOSTILE)("hostile body: %s", async (_name, body, status, code) => {
    const node = await standIn();
    const answer = await post(node, body);
    expect(answer.status).toBe(status);
    if (code !== undefined) {
      expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code } });
    }
    expect(node.recorded()).toEqual([]);
  });

  it("never throws on any JSON body and always answers in JSON-RPC 2.0 envelopes (property)", () => {
    const registry = new RecognitionRegistry(":memory:", STAND_IN_REGISTRY_CONTRACT);
    const chain = {
      chainId: STAND_IN_CHAIN_ID,
      contract: STAND_IN_REGISTRY_CONTRACT,
      registries: new Set([STAND_IN_REGISTRY_CONTRACT]),
      classHash: "0x1",
      accounts: new Map([[starknetDevAccount(0).address, starknetDevAccount(0).publicKey]]),
      accountClassHash: "0x2",
      registry,
    };
    const request = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
        id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
        method: fc.oneof(
          fc.constantFrom(
            "starknet_call",
            "starknet_chainId",
            "starknet_getClassHashAt",
            "starknet_blockNumber",
          ),
          fc.string(),
        ),
        params: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), request, fc.array(request)), (body) => {
        const answer = answerStarknetRpc(body, chain);
        for (const one of answer === undefined ? [] : Array.isArray(answer) ? answer : [answer]) {
          const envelope = one as Record<string, unknown>;
          expect(envelope.jsonrpc).toBe("2.0");
          expect("result" in envelope !== "error" in envelope).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
    expect(registry.blockNumber()).toBe(0);
    registry.close();
  });

  it("answers 0x1 for exactly the recorded EVM addresses, whatever their case (property)", () => {
    const address = fc
      .uint8Array({ minLength: 20, maxLength: 20 })
      .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);
    fc.assert(
      fc.property(fc.uniqueArray(address, { minLength: 2, maxLength: 6 }), (addresses) => {
        const registry = new RecognitionRegistry(":memory:", STAND_IN_REGISTRY_CONTRACT);
        const chain = {
          chainId: STAND_IN_CHAIN_ID,
          contract: STAND_IN_REGISTRY_CONTRACT,
          registries: new Set([STAND_IN_REGISTRY_CONTRACT]),
          classHash: "0x1",
          accounts: new Map([[starknetDevAccount(0).address, starknetDevAccount(0).publicKey]]),
          accountClassHash: "0x2",
          registry,
        };
        const ask = (payer: string) =>
          (answerStarknetRpc(estOuverte(payer), chain) as { result: string[] }).result[0];
        const [probe, ...recorded] = addresses;
        for (const one of recorded)
          registry.record(STAND_IN_REGISTRY_CONTRACT, `0x${one.slice(2).toUpperCase()}`);
        for (const one of recorded) expect(ask(one)).toBe("0x1");
        expect(ask(probe!)).toBe("0x0");
        expect(registry.blockNumber()).toBe(recorded.length);
        registry.close();
      }),
      { numRuns: 50 },
    );
    // CPU-bound: a registry per run; on a loaded CI machine 100 runs took 39 s.
  }, 120_000);
});
