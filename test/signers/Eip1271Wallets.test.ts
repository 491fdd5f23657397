import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EIP1271_MAGIC_VALUE, Eip1271Wallets } from "../../src/signers/Eip1271Wallets.js";
import { SignerUnavailableError } from "../../src/signers/SignerUnavailableError.js";

const WALLET = "0x00000000000000000000000000000000000c0ffe";
const DIGEST = `0x${"ab".repeat(32)}` as const;
const SIGNATURE = new Uint8Array(65).fill(7);
const MAGIC_WORD = `${EIP1271_MAGIC_VALUE}${"0".repeat(56)}`;

/** How the loopback JSON-RPC node answers the next `eth_call`s. */
type NodeAnswer =
  | { result: string }
  | { error: { code: number; message: string; data?: string } }
  | { status: number; body: string }
  | { hang: true };

/** A JSON-RPC node on loopback that answers every request with `answer`, and counts the `eth_call`s. */
let answer: NodeAnswer = { result: MAGIC_WORD };
let calls = 0;
let server: Server;
let rpcUrl: string;
const hanging: ServerResponse[] = [];

function respond(req: IncomingMessage, res: ServerResponse, body: string) {
  const request = JSON.parse(body) as { id: number; method: string };
  if (request.method === "eth_call") calls++;
  if ("hang" in answer) return void hanging.push(res);
  if ("status" in answer) return void res.writeHead(answer.status).end(answer.body);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...answer }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => respond(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hanging.splice(0).forEach((res) => res.destroy());
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answer = { result: MAGIC_WORD };
  calls = 0;
});

const wallets = (options: { timeoutMs?: number; cacheTtlMs?: number } = {}) =>
  new Eip1271Wallets({ rpcUrl, timeoutMs: 2_000, ...options });

describe("Eip1271Wallets: what a node's answer to isValidSignature means", () => {
  // A hostile corpus of node answers: only the magic value, left-aligned in a 32-byte word, is valid.
  const refusals: Array<[string, NodeAnswer]> = [
    ["no code at the address (empty answer)", { result: "0x" }],
    ["the magic value not left-aligned", { result: `0x${"0".repeat(56)}1626ba7e` }],
    ["another bytes4", { result: `0xffffffff${"0".repeat(56)}` }],
    ["the magic value, short of a word", { result: EIP1271_MAGIC_VALUE }],
    [
      "the magic value, then a non-zero rest of the word",
      { result: `${EIP1271_MAGIC_VALUE}${"0".repeat(55)}1` },
    ],
    ["a revert (code 3)", { error: { code: 3, message: "execution reverted", data: "0x" } }],
    ["a revert (-32000, geth's wording)", { error: { code: -32000, message: "execution reverted" } }],
  ];
  it.each(refusals)("%s: refused, not cached", async (_name, given) => {
    answer = given;
    const checker = wallets();
    const first = await checker.check(WALLET, DIGEST, SIGNATURE);
    expect(first.valid).toBe(false);
    expect(await checker.check(WALLET, DIGEST, SIGNATURE)).toEqual(first);
    expect(calls).toBe(2);
  });

  const unavailable: Array<[string, NodeAnswer]> = [
    ["an internal error", { error: { code: -32603, message: "internal error at http://10.0.0.7:8545" } }],
    ["rate limited", { error: { code: -32005, message: "limit exceeded" } }],
    ["HTTP 502", { status: 502, body: "bad gateway" }],
    ["not JSON", { status: 200, body: "<html>maintenance</html>" }],
  ];
  it.each(unavailable)(
    "%s: SignerUnavailableError naming the wallet, never the node",
    async (_name, given) => {
      answer = given;
      const failure = await wallets()
        .check(WALLET, DIGEST, SIGNATURE)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SignerUnavailableError);
      const { message, details } = failure as SignerUnavailableError;
      expect(message).not.toContain("127.0.0.1");
      expect(message).not.toContain("10.0.0.7");
      expect(details.account).toBe(WALLET);
    },
  );

  it("a node that does not answer in timeoutMs: SignerUnavailableError, in about that time", async () => {
    answer = { hang: true };
    const started = Date.now();
    const failure = await wallets({ timeoutMs: 300 })
      .check(WALLET, DIGEST, SIGNATURE)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SignerUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("an empty or oversized signature is refused without asking the node", async () => {
    const checker = wallets();
    expect((await checker.check(WALLET, DIGEST, new Uint8Array(0))).valid).toBe(false);
    expect((await checker.check(WALLET, DIGEST, new Uint8Array(4_097))).valid).toBe(false);
    expect(calls).toBe(0);
  });

  it("property: any answer but the magic word is refused", async () => {
    const checker = wallets();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 96 }), async (bytes) => {
        const result = `0x${Buffer.from(bytes).toString("hex")}`;
        fc.pre(!result.startsWith(MAGIC_WORD));
        answer = { result };
        expect((await checker.check(WALLET, DIGEST, bytes.length > 0 ? bytes : SIGNATURE)).valid).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});

describe("Eip1271Wallets: valid answers cached, bounded, keyed by wallet, digest and signature", () => {
  it("one call per (wallet, digest, signature): repeats and concurrent checks share it", async () => {
    const checker = wallets();
    const verdicts = await Promise.all(
      Array.from({ length: 5 }, () => checker.check(WALLET, DIGEST, SIGNATURE)),
    );
    expect(verdicts).toEqual(Array.from({ length: 5 }, () => ({ valid: true })));
    expect(await checker.check(WALLET, DIGEST, SIGNATURE)).toEqual({ valid: true });
    expect(calls).toBe(1);
    expect(checker.stats).toEqual({ calls: 1, cached: 1 });
    // Another signature, digest or wallet is asked again.
    await checker.check(WALLET, DIGEST, new Uint8Array(65).fill(8));
    await checker.check(WALLET, `0x${"cd".repeat(32)}`, SIGNATURE);
    await checker.check("0x00000000000000000000000000000000000c0ffd", DIGEST, SIGNATURE);
    expect(calls).toBe(4);
  });

  it("a valid answer older than cacheTtlMs is asked again", async () => {
    const checker = wallets({ cacheTtlMs: 50 });
    await checker.check(WALLET, DIGEST, SIGNATURE);
    await new Promise((resolve) => setTimeout(resolve, 120));
    answer = { result: "0x" };
    expect((await checker.check(WALLET, DIGEST, SIGNATURE)).valid).toBe(false);
    expect(calls).toBe(2);
  });

  it("refuses an rpcUrl that is plain http off loopback, or not a URL", () => {
    expect(() => new Eip1271Wallets({ rpcUrl: "http://rpc.example.com" })).toThrow(RangeError);
    expect(() => new Eip1271Wallets({ rpcUrl: "not a url" })).toThrow(RangeError);
    expect(() => new Eip1271Wallets({ rpcUrl: "https://rpc.example.com" })).not.toThrow();
  });
});
