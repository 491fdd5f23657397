import { getAddressDecoder, isAddress } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase58 } from "../../src/protocol/base58.js";
import { isSolanaAddress } from "../../src/protocol/isSolanaAddress.js";
import { payToProblem } from "../../src/pricing/payToProblem.js";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

describe("isSolanaAddress", () => {
  it.each([
    ["devnet USDC mint", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", true],
    ["mainnet USDC mint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", true],
    ["the system program (all zero bytes)", "11111111111111111111111111111111", true],
    ["token program", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", true],
    ["empty", "", false],
    ["an EVM address", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", false],
    ["0 is not base58", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDnc0U", false],
    ["O is not base58", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncOU", false],
    ["I is not base58", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncIU", false],
    ["l is not base58", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDnclU", false],
    ["31 bytes", "1111111111111111111111111111111", false],
    ["33 bytes", "2".repeat(45), false],
    ["too long", "z".repeat(45), false],
    ["44 chars over 32 bytes", "z".repeat(44), false],
    ["whitespace", " 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", false],
    ["unicode lookalike", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncD\u0055\u0301", false],
    ["newline", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU\n", false],
  ])("%s → %s", (_name, text, expected) => {
    expect(isSolanaAddress(text)).toBe(expected);
    expect(payToProblem(text, DEVNET) === undefined).toBe(expected);
  });

  it("agrees with @solana/kit's isAddress on any 32 bytes encoded, and on arbitrary strings", () => {
    const decoder = getAddressDecoder();
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const text = decoder.decode(bytes);
        expect(isSolanaAddress(text)).toBe(true);
        expect(decodeBase58(text)).toEqual(bytes);
      }),
    );
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(..."123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl "),
          maxLength: 50,
        }),
        (text) => {
          expect(isSolanaAddress(text)).toBe(isAddress(text));
        },
      ),
    );
  });

  it("an EVM payee on a Solana network (or the reverse) is refused at start-up", () => {
    expect(payToProblem("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", DEVNET)).toMatch(
      /base58 Solana address/,
    );
    expect(payToProblem("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", "eip155:8453")).toMatch(
      /0x-prefixed/,
    );
  });
});
