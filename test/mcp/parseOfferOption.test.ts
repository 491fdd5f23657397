import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOfferOption, transferMethodOf } from "../../src/mcp/parseOfferOption.js";

const PAYEE = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

const GOOD = {
  scheme: "exact",
  network: "eip155:84532",
  amount: "1000",
  asset: TOKEN,
  payTo: PAYEE,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
};

const SOLANA = {
  scheme: "exact",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  amount: "10000",
  asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  payTo: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  maxTimeoutSeconds: 60,
  extra: { feePayer: "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9" },
};

describe("parseOfferOption", () => {
  it("accepts a Solana exact option (an SPL transfer, the fee payer named), as offered", () => {
    const parsed = parseOfferOption({ ...SOLANA, extra: { ...SOLANA.extra, memo: "x" } });
    expect(parsed).toEqual({ option: { ...SOLANA, extra: { ...SOLANA.extra, memo: "x" } } });
    expect("option" in parsed && transferMethodOf(parsed.option)).toBe("spl");
  });

  it("accepts a well-typed exact option and keeps the fields it does not know (the server compares them)", () => {
    const option = { ...GOOD, extra: { ...GOOD.extra, feePayer: "x" }, resourceHint: 1 };
    expect(parseOfferOption(option)).toEqual({ option });
    const parsed = parseOfferOption(GOOD);
    expect("option" in parsed && transferMethodOf(parsed.option)).toBe("eip3009");
  });

  it("accepts exact-pq (the same EIP-3009 authorization as exact), keeping the scheme as offered", () => {
    const option = { ...GOOD, scheme: "exact-pq" };
    expect(parseOfferOption(option)).toEqual({ option });
  });

  it.each<[string, unknown, RegExp]>([
    ["amount as a one-item array", { ...GOOD, amount: ["1000"] }, /^amount has the wrong type$/],
    ["amount as a number", { ...GOOD, amount: 1000 }, /^amount has the wrong type$/],
    ["amount with a sign", { ...GOOD, amount: "-1" }, /^amount is not a whole number/],
    ["amount with a leading zero", { ...GOOD, amount: "01" }, /^amount is not a whole number/],
    ["amount in exponent form", { ...GOOD, amount: "1e6" }, /^amount is not a whole number/],
    ["amount above uint256", { ...GOOD, amount: (2n ** 256n).toString() }, /^amount is above 2\^256/],
    ["payTo as an array", { ...GOOD, payTo: [PAYEE] }, /^payTo has the wrong type$/],
    ["payTo too short", { ...GOOD, payTo: "0x1234" }, /^payTo is not an address/],
    ["asset as an object", { ...GOOD, asset: { address: TOKEN } }, /^asset has the wrong type$/],
    [
      "maxTimeoutSeconds as a string",
      { ...GOOD, maxTimeoutSeconds: "60" },
      /^maxTimeoutSeconds has the wrong type$/,
    ],
    [
      "maxTimeoutSeconds fractional",
      { ...GOOD, maxTimeoutSeconds: 1.5 },
      /^maxTimeoutSeconds has the wrong type$/,
    ],
    ["maxTimeoutSeconds zero", { ...GOOD, maxTimeoutSeconds: 0 }, /^maxTimeoutSeconds is not positive$/],
    ["network as a number", { ...GOOD, network: 84532 }, /^network has the wrong type$/],
    [
      "a Solana network with EVM addresses",
      { ...GOOD, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" },
      /^asset is not a Solana address/,
    ],
    ["Solana without a fee payer", { ...SOLANA, extra: {} }, /^extra\.feePayer has the wrong type$/],
    [
      "Solana with an EVM fee payer",
      { ...SOLANA, extra: { feePayer: PAYEE } },
      /^extra\.feePayer is not a Solana/,
    ],
    ["Solana with exact-pq", { ...SOLANA, scheme: "exact-pq" }, /^scheme is not exact/],
    [
      "Solana with a short genesis hash",
      { ...SOLANA, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvd" },
      /^network is not a Solana network/,
    ],
    [
      "Solana with a 31-byte payee",
      { ...SOLANA, payTo: "11111111111111111111111111111" },
      /^payTo is not a Solana address/,
    ],
    [
      "Solana with a mint outside base58",
      { ...SOLANA, asset: "0OIl" + SOLANA.asset.slice(4) },
      /^asset is not a Solana address/,
    ],
    ["another scheme", { ...GOOD, scheme: "upto" }, /^scheme is not exact or exact-pq$/],
    ["a scheme in another case", { ...GOOD, scheme: "EXACT-PQ" }, /^scheme is not exact or exact-pq$/],
    ["extra as a string", { ...GOOD, extra: "permit2" }, /^extra has the wrong type$/],
    [
      "an unknown transfer method",
      { ...GOOD, extra: { assetTransferMethod: "eip2612" } },
      /^extra\.assetTransferMethod/,
    ],
    ["name as a number", { ...GOOD, extra: { name: 1, version: "2" } }, /^extra\.name has the wrong type$/],
    ["null", null, /^the option has the wrong type$/],
    ["an array", [GOOD], /^the option has the wrong type$/],
  ])("refuses %s, naming the field", (_name, raw, problem) => {
    const result = parseOfferOption(raw);
    expect(result).toHaveProperty("problem");
    expect((result as { problem: string }).problem).toMatch(problem);
  });

  it("reads Permit2 only when the option names it", () => {
    const parsed = parseOfferOption({ ...GOOD, extra: { assetTransferMethod: "permit2" } });
    expect("option" in parsed && transferMethodOf(parsed.option)).toBe("permit2");
  });

  it("never accepts an amount that is not a canonical decimal string of a uint256", () => {
    fc.assert(
      fc.property(fc.anything(), (amount) => {
        const result = parseOfferOption({ ...GOOD, amount });
        const canonical =
          typeof amount === "string" &&
          /^(0|[1-9][0-9]*)$/.test(amount) &&
          amount.length <= 78 &&
          BigInt(amount) < 2n ** 256n;
        expect("option" in result).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });

  it("accepts every uint256 amount and every positive whole lifetime", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (amount, seconds) => {
          const result = parseOfferOption({ ...GOOD, amount: amount.toString(), maxTimeoutSeconds: seconds });
          expect(result).toEqual({
            option: { ...GOOD, amount: amount.toString(), maxTimeoutSeconds: seconds },
          });
        },
      ),
    );
  });

  it("never throws, whatever the option", () => {
    fc.assert(
      fc.property(fc.anything(), fc.dictionary(fc.string(), fc.anything()), (raw, fields) => {
        expect(() => parseOfferOption(raw)).not.toThrow();
        expect(() => parseOfferOption({ ...GOOD, ...fields })).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
