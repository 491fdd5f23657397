import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAmount } from "../../src/pricing/formatAmount.js";
import { networkName } from "../../src/pricing/networkName.js";
import { parseMoney } from "../../src/pricing/parseMoney.js";

describe("amounts in whole units, networks by name (what the paywall page shows)", () => {
  it.each([
    ["10000", 6, "0.01"],
    ["1000000", 6, "1"],
    ["1", 6, "0.000001"],
    ["0", 6, "0"],
    ["000120", 2, "1.2"],
    ["123456789012345678901234567890", 18, "123456789012.34567890123456789"],
    ["5", 0, "5"],
  ])("%s at %i decimals → %s", (amount, decimals, expected) => {
    expect(formatAmount(amount, decimals)).toBe(expected);
  });

  it.each(["", "-1", "1.5", "1e6", " 1", "0x10", "١٢"])("refuses %j", (amount) => {
    expect(() => formatAmount(amount, 6)).toThrow(/not an amount/);
  });

  it("property: whole units read back with the money parser are the same smallest units", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        fc.integer({ min: 0, max: 36 }),
        (amount, decimals) => {
          expect(parseMoney(formatAmount(amount.toString(), decimals), decimals)).toBe(amount);
        },
      ),
    );
  });

  it.each([
    ["eip155:8453", "Base"],
    ["eip155:84532", "Base Sepolia"],
    ["eip155:1", "Ethereum"],
    ["eip155:31337", "Local dev chain (anvil)"],
    ["eip155:777", "chain 777 (eip155:777)"],
    ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
    ["eip155:constructor", "eip155:constructor"],
  ])("%s is shown as %j", (network, name) => {
    expect(networkName(network)).toBe(name);
  });
});
