import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readReceipt } from "../../src/mcp/readReceipt.js";

const PAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const TX = `0x${"ab".repeat(32)}`;
const EXPECTED = { network: "eip155:31337", payer: PAYER } as const;
const GOOD = { success: true, transaction: TX, network: "eip155:31337", payer: PAYER };

/** A response carrying `header` as its receipt header (`name`, PAYMENT-RESPONSE by default). */
const answer = (header: string | undefined, name = "payment-response") =>
  new Response("body", { headers: header === undefined ? {} : { [name]: header } });
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

describe("readReceipt", () => {
  it("reads a settlement of this payment", () => {
    expect(readReceipt(answer(encode(GOOD)), EXPECTED)).toEqual({ kind: "settled", transaction: TX });
    const { payer: _payer, ...withoutPayer } = GOOD;
    expect(readReceipt(answer(encode(withoutPayer)), EXPECTED)).toEqual({ kind: "settled", transaction: TX });
    expect(readReceipt(answer(encode({ ...GOOD, payer: PAYER.toLowerCase() })), EXPECTED)).toMatchObject({
      kind: "settled",
    });
  });

  it("reads a refusal with its reason", () => {
    const refused = {
      success: false,
      transaction: "",
      network: "eip155:31337",
      errorReason: "insufficient_funds",
    };
    expect(readReceipt(answer(encode(refused)), EXPECTED)).toEqual({
      kind: "refused",
      reason: "insufficient_funds",
    });
  });

  it("reads only PAYMENT-RESPONSE: X-PAYMENT-RESPONSE is no receipt", () => {
    expect(readReceipt(answer(encode(GOOD), "x-payment-response"), EXPECTED)).toEqual({ kind: "none" });
    expect(readReceipt(answer(undefined), EXPECTED)).toEqual({ kind: "none" });
  });

  it.each<[string, string]>([
    ["not base64 JSON", "%%%"],
    ["JSON null", encode(null)],
    ["an array", encode([GOOD])],
    ["success as a string", encode({ ...GOOD, success: "true" })],
    ["transaction as a number", encode({ ...GOOD, transaction: 12345 })],
    ["payer as an object", encode({ ...GOOD, payer: { address: PAYER } })],
    ["transaction not a hash", encode({ ...GOOD, transaction: "0xnothex" })],
    ["transaction too long", encode({ ...GOOD, transaction: `${TX}00` })],
    ["another network", encode({ ...GOOD, network: "eip155:1" })],
    ["another payer", encode({ ...GOOD, payer: OTHER })],
    ["a payer that is no address", encode({ ...GOOD, payer: "me" })],
    ["an error reason of 10 kB", encode({ ...GOOD, success: false, errorReason: "x".repeat(10_000) })],
    ["a header of 9000 characters", "A".repeat(9000)],
  ])("never trusts a receipt that is %s", (_name, header) => {
    expect(readReceipt(answer(header), EXPECTED)).toMatchObject({ kind: "invalid" });
  });

  it("settles only a well-typed success of this payment, and never throws", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            success: fc.oneof(fc.boolean(), fc.anything()),
            transaction: fc.oneof(fc.constant(TX), fc.anything()),
            network: fc.oneof(fc.constant("eip155:31337"), fc.anything()),
            payer: fc.oneof(fc.constant(PAYER), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        (receipt) => {
          const result = readReceipt(answer(encode(receipt)), EXPECTED);
          const settles =
            receipt.success === true &&
            receipt.transaction === TX &&
            receipt.network === "eip155:31337" &&
            (receipt.payer === undefined || receipt.payer === PAYER);
          expect(result.kind === "settled").toBe(settles);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("readReceipt on Solana", () => {
  const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const SOL_PAYER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  // 64 bytes in base58: a transaction signature.
  const SIGNATURE =
    "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
  const EXPECTED_SOL = { network: NETWORK, payer: SOL_PAYER };
  const GOOD_SOL = { success: true, transaction: SIGNATURE, network: NETWORK, payer: SOL_PAYER };

  it("settles a base58 signature of 64 bytes paid by this payer", () => {
    expect(readReceipt(answer(encode(GOOD_SOL)), EXPECTED_SOL)).toEqual({
      kind: "settled",
      transaction: SIGNATURE,
    });
  });

  it.each<[string, unknown]>([
    ["an EVM hash", { ...GOOD_SOL, transaction: TX }],
    ["a signature of 63 bytes", { ...GOOD_SOL, transaction: SIGNATURE.slice(0, -2) }],
    ["a signature with a 0", { ...GOOD_SOL, transaction: `0${SIGNATURE.slice(1)}` }],
    ["the payer in another case", { ...GOOD_SOL, payer: SOL_PAYER.toLowerCase() }],
    ["an EVM payer", { ...GOOD_SOL, payer: PAYER }],
    ["the EVM network", { ...GOOD_SOL, network: "eip155:31337" }],
  ])("never trusts %s", (_name, receipt) => {
    expect(readReceipt(answer(encode(receipt)), EXPECTED_SOL)).toMatchObject({ kind: "invalid" });
  });
});
