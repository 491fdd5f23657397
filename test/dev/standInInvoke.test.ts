import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { startStarknetStandIn, type RunningStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import { STAND_IN_RECORD_ENTRYPOINT } from "../../src/dev/starknetStandIn/answerStarknetRpc.js";
import { StarknetInvoker, type ContractCall } from "../../src/recognition/recorder/StarknetInvoker.js";
import { StarknetRpc, minimalFelt } from "../../src/starknet/StarknetRpc.js";
import { specResponseProblems } from "../support/starknetRpcServer.js";

const PAYER = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const OTHER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

const running: RunningStarknetStandIn[] = [];
afterEach(async () => {
  for (const node of running.splice(0)) await node.stop();
});

async function setUp() {
  const node = await startStarknetStandIn();
  running.push(node);
  const rpc = new StarknetRpc({ rpcUrl: node.rpcUrl, timeoutMs: 5_000, setting: "test" });
  const account = node.devAccounts[0]!;
  const invoker = new StarknetInvoker(rpc, account);
  const record = (payer: string, contract = node.contract): ContractCall => ({
    contract,
    entrypoint: STAND_IN_RECORD_ENTRYPOINT,
    calldata: [payer],
  });
  const post = async (method: string, params: unknown) => {
    const response = await fetch(node.rpcUrl, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
    });
    const json = (await response.json()) as { result?: unknown; error?: { code: number; data?: unknown } };
    expect(specResponseProblems(method, json), `${method} ${JSON.stringify(json)}`).toEqual([]);
    return json;
  };
  return { node, rpc, account, invoker, record, post };
}

describe("the layer-2 stand-in takes invoke transactions (starknet_addInvokeTransaction, v0.10 write API)", () => {
  it("accepts a signed record_payer multicall at the account's nonce: est_ouverte turns 0x1, receipt and status as the spec writes them", async () => {
    const { node, invoker, record, post } = await setUp();
    expect(await invoker.nonce()).toBe("0x0");
    const signed = await invoker.sign([record(PAYER), record(OTHER)], "0x0");
    const sent = await post("starknet_addInvokeTransaction", { invoke_transaction: signed.transaction });
    expect(sent.result).toEqual({ transaction_hash: signed.hash });
    expect(await invoker.nonce()).toBe("0x1");
    expect(await invoker.isRecorded(node.contract, PAYER)).toBe(true);
    expect(await invoker.isRecorded(node.contract, OTHER)).toBe(true);
    const receipt = await post("starknet_getTransactionReceipt", { transaction_hash: signed.hash });
    expect(receipt.result).toMatchObject({
      type: "INVOKE",
      transaction_hash: signed.hash,
      execution_status: "SUCCEEDED",
      finality_status: "ACCEPTED_ON_L2",
      block_number: 1,
    });
    expect((receipt.result as { events: Array<{ data: string[] }> }).events.map((e) => e.data)).toEqual([
      [PAYER],
      [OTHER],
    ]);
    await post("starknet_getTransactionStatus", { transaction_hash: signed.hash });
    expect(await invoker.state(signed.hash)).toEqual({ state: "succeeded" });
    expect(await invoker.state("0x1234")).toEqual({ state: "not_found" });
    expect((await post("starknet_getTransactionReceipt", { transaction_hash: "0x1234" })).error?.code).toBe(
      29,
    );
    expect(node.recordCalls().map((c) => c.payer)).toEqual([PAYER, OTHER]);
  });

  it("refuses, with the write API's codes, what a sequencer would refuse; nothing is recorded", async () => {
    const { node, account, invoker, record, post } = await setUp();
    const good = await invoker.sign([record(PAYER)], "0x0");
    const tx = good.transaction;
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ["a signature of another key", { ...tx, signature: ["0x1", "0x2"] }, 55],
      ["a nonce ahead of the account's", (await invoker.sign([record(PAYER)], "0x5")).transaction, 52],
      ["a sender that is no account", { ...tx, sender_address: "0x1234" }, 58],
      ["version 1", { ...tx, version: "0x1" }, 61],
      [
        "a call that is not record_payer",
        (await invoker.sign([{ ...record(PAYER), entrypoint: "transfer" }], "0x0")).transaction,
        55,
      ],
      ["a call to no registry", (await invoker.sign([record(PAYER, "0x999")], "0x0")).transaction, 55],
      ["calldata cut short", { ...tx, calldata: (tx.calldata as string[]).slice(0, 3) }, 55],
      ["no resource bounds", { ...tx, resource_bounds: undefined }, -32602],
      ["a calldata that is not felts", { ...tx, calldata: ["0x1", "zz"] }, -32602],
    ];
    for (const [name, transaction, code] of cases) {
      const answer = await post("starknet_addInvokeTransaction", { invoke_transaction: transaction });
      expect(answer.error?.code, name).toBe(code);
    }
    expect(node.recordCalls()).toEqual([]);
    expect(await invoker.isRecorded(node.contract, PAYER)).toBe(false);
    // the good one still goes through, once; sent again it is a duplicate, then a stale nonce
    expect((await post("starknet_addInvokeTransaction", { invoke_transaction: tx })).result).toEqual({
      transaction_hash: good.hash,
    });
    const again = await post("starknet_addInvokeTransaction", { invoke_transaction: tx });
    expect([52, 59]).toContain(again.error?.code);
    expect(node.recordCalls()).toHaveLength(1);
    expect(account.address).toBeTruthy();
  });

  it("never throws on any invoke_transaction and never records without a valid signature (property)", async () => {
    const { node, invoker, record, post } = await setUp();
    const tx = (await invoker.sign([record(PAYER)], "0x0")).transaction;
    const felt = fc.bigInt({ min: 0n, max: 2n ** 251n }).map((n) => minimalFelt(n));
    const value = fc.oneof(
      felt,
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.array(felt, { maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(tx)), value, async (field, replacement) => {
        const answer = await post("starknet_addInvokeTransaction", {
          invoke_transaction: { ...tx, [field]: replacement },
        });
        // Any change to a signed field must be refused (its hash changes, so the signature no longer holds).
        if (answer.result !== undefined) expect(JSON.stringify(replacement)).toBe(JSON.stringify(tx[field]));
      }),
      { numRuns: 60 },
    );
    expect(node.recordCalls().length).toBeLessThanOrEqual(1);
  });
});
