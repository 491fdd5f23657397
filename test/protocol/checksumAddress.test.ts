import fc from "fast-check";
import { getAddress, isAddress } from "viem";
import { describe, expect, it } from "vitest";
import { checksumAddress, isEvmAddress } from "../../src/protocol/checksumAddress.js";

const hexAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);
/** The same address with each hex letter's case chosen at random: mostly a wrong checksum. */
const anyCase = fc
  .tuple(hexAddress, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))
  .map(
    ([address, upper]) =>
      `0x${[...address.slice(2)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")}`,
  );

// viem's getAddress/isAddress (strict) are the reference: viem stays a dependency, loaded lazily.
describe("checksumAddress and isEvmAddress (EIP-55)", () => {
  it("match the EIP-55 test vectors", () => {
    for (const address of [
      "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
      "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ]) {
      expect(checksumAddress(address.toLowerCase())).toBe(address);
      expect(isEvmAddress(address)).toBe(true);
    }
  });

  it("checksum as viem's getAddress does (property)", () => {
    fc.assert(fc.property(anyCase, (address) => checksumAddress(address) === getAddress(address)));
  });

  it("accept exactly what viem's strict isAddress accepts (property)", () => {
    fc.assert(
      fc.property(fc.oneof(anyCase, hexAddress, fc.string()), (address) => {
        expect(isEvmAddress(address)).toBe(isAddress(address, { strict: true }));
      }),
    );
  });

  it.each([
    ["empty", ""],
    ["no 0x", "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    ["39 digits", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae"],
    ["41 digits", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0"],
    ["not hex", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"],
    ["upper-case X", "0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"],
    ["trailing newline", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed\n"],
    ["wrong checksum", "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["all upper-case, checksum wrong", "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED"],
  ])("refuses a hostile address: %s", (_, address) => {
    expect(isEvmAddress(address)).toBe(false);
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) expect(() => checksumAddress(address)).toThrow(RangeError);
  });
});
