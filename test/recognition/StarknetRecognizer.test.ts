import { afterEach, describe, expect, it } from "vitest";
import { StarknetRecognizer, type RpcExchange } from "../../src/recognition/StarknetRecognizer.js";
import { RecognitionError } from "../../src/recognition/RecognitionError.js";
import {
  startStarknetRpcServer,
  type StarknetCallHandler,
  type StarknetRpcServer,
  type RpcServerMode,
} from "../support/starknetRpcServer.js";

const EST_OUVERTE = "0x3600a7e6d7c7be91e03409ac690f0f4547fdb0f5147af3fcd4cc9ef9bbfbf35";
const CONTRACT = "0x000A1B2C3D";
const PAYER = "0x00000000000000000000000000000000000000Ab";
const OTHER = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";

/** est_ouverte from a table keyed by the felt of the payer. */
const table =
  (recognized: string[]): StarknetCallHandler =>
  ({ calldata }) => [recognized.includes(calldata[0] ?? "") ? "0x1" : "0x0"];

let server: StarknetRpcServer | undefined;
afterEach(async () => {
  // Every test also proves the client only sent what the spec allows.
  expect(server?.validationFailures ?? []).toEqual([]);
  await server?.close();
  server = undefined;
});

async function recognizerFor(
  call: StarknetCallHandler,
  extra: { timeoutMs?: number; mode?: RpcServerMode } = {},
) {
  server = await startStarknetRpcServer({ call, ...(extra.mode ? { mode: extra.mode } : {}) });
  return new StarknetRecognizer({
    rpcUrl: server.url,
    contract: CONTRACT,
    timeoutMs: extra.timeoutMs ?? 2_000,
  });
}

async function failure(promise: Promise<unknown>): Promise<RecognitionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RecognitionError);
  return error as RecognitionError;
}

describe("StarknetRecognizer", () => {
  it("calls est_ouverte with the payer as one lower-case felt, on /rpc/v0_10 at latest", async () => {
    const recognizer = await recognizerFor(table(["0xab"]));
    expect(await recognizer.isRecognized(PAYER)).toBe(true);
    expect(await recognizer.isRecognized(OTHER)).toBe(false);
    expect(server!.calls()).toEqual([
      {
        contractAddress: "0xa1b2c3d",
        entryPointSelector: EST_OUVERTE,
        calldata: ["0xab"],
        blockId: "latest",
      },
      {
        contractAddress: "0xa1b2c3d",
        entryPointSelector: EST_OUVERTE,
        calldata: ["0x5b38da6a701c568545dcfcb03fcb875f56beddc4"],
        blockId: "latest",
      },
    ]);
    expect(server!.requests.map((request) => [request.path, request.method])).toEqual([
      ["/rpc/v0_10", "starknet_call"],
      ["/rpc/v0_10", "starknet_call"],
    ]);
  });

  it('sends the seed\'s request byte for byte: positional params, an array of two, the call then "latest"', async () => {
    const recognizer = await recognizerFor(table(["0xab"]));
    await recognizer.isRecognized(PAYER);
    const body = server!.requests[0]!.body as { id: number };
    expect(JSON.stringify(body)).toBe(
      `{"jsonrpc":"2.0","id":${body.id},"method":"starknet_call","params":[` +
        `{"contract_address":"0xa1b2c3d","entry_point_selector":"${EST_OUVERTE}","calldata":["0xab"]},"latest"]}`,
    );
  });

  it("returns the raw felt and reports the raw exchange", async () => {
    server = await startStarknetRpcServer({ call: () => ["0x1"] });
    const exchanges: RpcExchange[] = [];
    const recognizer = new StarknetRecognizer({
      rpcUrl: `${server.url}/`,
      contract: CONTRACT,
      onExchange: (exchange) => exchanges.push(exchange),
    });
    expect(await recognizer.estOuverte(PAYER)).toBe("0x1");
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.url).toBe(`${server.url}/rpc/v0_10`);
    expect(JSON.parse(exchanges[0]!.request)).toMatchObject({ jsonrpc: "2.0", method: "starknet_call" });
    expect(JSON.parse(exchanges[0]!.response!)).toMatchObject({ result: ["0x1"] });
    expect(exchanges[0]!.status).toBe(200);
  });

  it.each([
    [20, "contract_not_found"],
    [21, "entrypoint_not_found"],
    [24, "block_not_found"],
    [40, "contract_error"],
    [-32601, "transport"],
    [-32603, "transport"],
  ] as const)("maps JSON-RPC error %i to %s", async (code, kind) => {
    const recognizer = await recognizerFor(() => ["0x1"], { mode: { rpcError: code } });
    const error = await failure(recognizer.isRecognized(PAYER));
    expect(error.kind).toBe(kind);
    expect(error.details.code).toBe(code);
    if (kind === "contract_error") expect(error.details.revertError).toBe("est_ouverte: test revert");
  });

  it("maps HTTP 500 to transport and a non-JSON body to malformed", async () => {
    const recognizer = await recognizerFor(() => ["0x1"], { mode: "http500" });
    const http500 = await failure(recognizer.isRecognized(PAYER));
    expect([http500.kind, http500.details.status]).toEqual(["transport", 500]);
    server!.setMode("garbage");
    expect((await failure(recognizer.isRecognized(PAYER))).kind).toBe("malformed");
  });

  it("gives up on a node that hangs after timeoutMs", async () => {
    const recognizer = await recognizerFor(() => ["0x1"], { mode: "hang", timeoutMs: 150 });
    const started = performance.now();
    const error = await failure(recognizer.isRecognized(PAYER));
    expect(error.kind).toBe("transport");
    expect(error.message).toMatch(/within 150 ms/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("maps a refused connection to transport", async () => {
    const recognizer = await recognizerFor(() => ["0x1"]);
    await server!.close();
    const closed = server!;
    server = undefined;
    expect((await failure(recognizer.isRecognized(PAYER))).kind).toBe("transport");
    expect(closed.validationFailures).toEqual([]);
  });

  it.each([[["0x2"]], [[]], [["0x1", "0x0"]]])("refuses the answer %j as malformed", async (answer) => {
    const recognizer = await recognizerFor(() => answer);
    expect((await failure(recognizer.isRecognized(PAYER))).kind).toBe("malformed");
  });

  it("refuses a payer that is neither an EVM address nor a layer-2 account (a felt)", async () => {
    const recognizer = await recognizerFor(() => ["0x1"]);
    for (const payer of ["1234", "0xzz", `0x${"f".repeat(64)}`, `0x${"1".repeat(65)}`, ""]) {
      await expect(recognizer.isRecognized(payer), payer).rejects.toThrow(RangeError);
    }
    expect(server!.requests).toEqual([]);
    // A layer-2 account is asked as itself (a Starknet-signed CBOR payer is recorded so).
    expect(await recognizer.isRecognized("0x04a1")).toBe(true);
  });

  it("refuses plain http except on loopback, and contracts that are not felts", () => {
    expect(() => new StarknetRecognizer({ rpcUrl: "http://rpc.example.com", contract: CONTRACT })).toThrow(
      /https/,
    );
    expect(
      () => new StarknetRecognizer({ rpcUrl: "https://rpc.example.com", contract: "0x" + "f".repeat(64) }),
    ).toThrow(RangeError);
    expect(new StarknetRecognizer({ rpcUrl: "https://rpc.example.com/", contract: "0x0" }).nodeUrl).toBe(
      "https://rpc.example.com/rpc/v0_10",
    );
  });
});
