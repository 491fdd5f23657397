import { getBase64Decoder, getTransactionEncoder, type Transaction } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase58, encodeBase58 } from "../../src/protocol/base58.js";
import { parseSvmTransaction, svmMessageOf, svmTransferOf } from "../../src/protocol/svmTransaction.js";
import { paymentIdentity } from "../../src/ledger/paymentIdentity.js";

const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const key = (byte: number) => new Uint8Array(32).fill(byte);

/** A v0 message: 2 signers, keys [feePayer, owner, source, mint, destination, token program], one TransferChecked. */
function message(options: { version?: boolean; data?: number[] } = {}): Uint8Array {
  const keys = [key(1), key(2), key(3), key(4), key(5), TOKEN_BYTES];
  const parts: number[] = [];
  if (options.version !== false) parts.push(0x80);
  parts.push(2, 0, 2, keys.length);
  for (const k of keys) parts.push(...k);
  parts.push(...key(9)); // blockhash
  parts.push(1, 5, 4, 2, 3, 4, 1);
  const data = options.data ?? [12, 16, 39, 0, 0, 0, 0, 0, 0, 6];
  parts.push(data.length, ...data);
  if (options.version !== false) parts.push(0);
  return Uint8Array.from(parts);
}
const TOKEN_BYTES = decodeBase58(TOKEN)!;

function wire(
  messageBytes: Uint8Array,
  signatures = [new Uint8Array(64), new Uint8Array(64).fill(7)],
): string {
  return getBase64Decoder().decode(
    getTransactionEncoder().encode({
      messageBytes,
      signatures: Object.fromEntries(
        signatures.map((signature, index) => [encodeBase58(key(index + 1)), signature]),
      ),
    } as unknown as Transaction),
  );
}

describe("parseSvmTransaction", () => {
  it("reads a v0 and a legacy transaction: signatures, message, keys, blockhash, the transfer", () => {
    for (const version of [true, false]) {
      const bytes = message({ version });
      const parsed = parseSvmTransaction(wire(bytes))!;
      expect(parsed.signatures).toHaveLength(2);
      expect(parsed.message).toEqual(bytes);
      expect(parsed.accountKeys[5]).toBe(TOKEN);
      expect(parsed.recentBlockhash).toBe(encodeBase58(key(9)));
      expect(svmTransferOf(parsed)).toEqual({
        source: encodeBase58(key(3)),
        authority: encodeBase58(key(2)),
      });
    }
  });

  it.each([
    ["empty", ""],
    ["not base64", "!!!"],
    ["no signatures", Buffer.from([0]).toString("base64")],
    ["truncated signature", Buffer.from([1, 1, 2, 3]).toString("base64")],
    ["signature count ≠ header", wire(message(), [new Uint8Array(64)])],
    ["version 1", wire(Uint8Array.from([0x81, ...message().subarray(1)]))],
    ["truncated message", wire(message()).slice(0, 200)],
    [
      "program index out of range",
      wire(Uint8Array.from(message().map((b, i, all) => (i === all.length - 14 ? 99 : b)))),
    ],
    ["length of 4 bytes", Buffer.from([0xff, 0xff, 0xff, 0xff, 0x01]).toString("base64")],
  ])("%s → undefined", (_name, text) => {
    expect(parseSvmTransaction(text)).toBeUndefined();
  });

  it("a transfer that is not TransferChecked is not one", () => {
    expect(
      svmTransferOf(parseSvmTransaction(wire(message({ data: [3, 1, 0, 0, 0, 0, 0, 0, 0] })))!),
    ).toBeUndefined();
  });

  it("never throws on arbitrary bytes, and anything read back has its message at the end of the wire", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const text = Buffer.from(bytes).toString("base64");
        const parsed = parseSvmTransaction(text);
        if (parsed)
          expect(Buffer.from(bytes).subarray(bytes.length - parsed.message.length)).toEqual(
            Buffer.from(parsed.message),
          );
      }),
    );
  });

  it("svmMessageOf (the ledger identity's reading, no base58) takes what parseSvmTransaction takes, with its message", () => {
    const same = (text: string) => {
      const parsed = parseSvmTransaction(text);
      const message = svmMessageOf(text);
      expect(message === undefined).toBe(parsed === undefined);
      if (parsed && message) expect(Buffer.from(message)).toEqual(Buffer.from(parsed.message));
    };
    for (const text of [
      wire(message()),
      wire(message({ version: false })),
      "",
      "AA==",
      "!!",
      wire(message()).slice(0, 80),
    ])
      same(text);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => same(Buffer.from(bytes).toString("base64"))),
    );
    // Mutations of a real transaction: most stay well formed, some break a length or an index.
    const real = Buffer.from(wire(message()), "base64");
    fc.assert(
      fc.property(fc.nat({ max: real.length - 1 }), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const mutated = Buffer.from(real);
        mutated[at] = byte;
        same(mutated.toString("base64"));
      }),
    );
  });

  it("the ledger identity is the message's: other signature bytes, the same identity; another message, another", () => {
    const accepted = { scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" };
    const identity = (transaction: string) =>
      paymentIdentity({ x402Version: 2, accepted, payload: { transaction } } as never);
    const one = identity(wire(message()));
    expect(one).toMatch(/^svm\|solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1\|[0-9a-f]{64}$/);
    expect(identity(wire(message(), [new Uint8Array(64).fill(1), new Uint8Array(64).fill(2)]))).toBe(one);
    expect(identity(wire(message({ data: [12, 17, 39, 0, 0, 0, 0, 0, 0, 6] })))).not.toBe(one);
    expect(identity("not a transaction")).toMatch(/^sha256\|/);
  });
});
