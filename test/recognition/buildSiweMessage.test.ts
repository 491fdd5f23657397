import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatSIWEMessage } from "@x402/extensions/sign-in-with-x";
import { buildSiweMessage, type SiweFields } from "../../src/recognition/buildSiweMessage.js";

const base: SiweFields = {
  domain: "api.example.com:8443",
  address: "0x5b38da6a701c568545dcfcb03fcb875f56beddc4",
  uri: "https://api.example.com:8443/data?x=1",
  version: "1",
  chainId: 84532,
  nonce: "0123456789abcdef0123456789abcdef",
  issuedAt: "2026-11-22T02:30:00.000Z",
};

/** The official x402 client helper's text for the same fields (it uses the siwe library). */
function official(fields: SiweFields): string {
  const { chainId, address, ...rest } = fields;
  return formatSIWEMessage({ ...rest, chainId: `eip155:${chainId}`, type: "eip191" }, address);
}

describe("buildSiweMessage", () => {
  it("writes EIP-4361 with a checksummed address and two empty lines when there is no statement", () => {
    expect(buildSiweMessage(base)).toBe(
      [
        "api.example.com:8443 wants you to sign in with your Ethereum account:",
        "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
        "",
        "",
        "URI: https://api.example.com:8443/data?x=1",
        "Version: 1",
        "Chain ID: 84532",
        "Nonce: 0123456789abcdef0123456789abcdef",
        "Issued At: 2026-11-22T02:30:00.000Z",
      ].join("\n"),
    );
  });

  it("matches the official client helper with every optional field", () => {
    const full: SiweFields = {
      ...base,
      statement: "Sign in to skip paying again",
      expirationTime: "2026-11-22T02:35:00.000Z",
      notBefore: "2026-11-22T02:29:00.000Z",
      requestId: "req-1",
      resources: ["https://api.example.com:8443/data?x=1", "ipfs://bafybeigdyrzt"],
    };
    expect(buildSiweMessage(full)).toBe(official(full));
    expect(buildSiweMessage(base)).toBe(official(base));
  });

  it("matches the official client helper on generated fields", () => {
    const text = fc.stringMatching(/^[A-Za-z0-9 .,!?-]{1,40}$/);
    const iso = fc
      .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) })
      .map((ms) => new Date(ms).toISOString());
    fc.assert(
      fc.property(
        fc.record(
          {
            domain: fc.domain(),
            address: fc
              .uint8Array({ minLength: 20, maxLength: 20 })
              .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`),
            statement: text,
            uri: fc.webUrl(),
            chainId: fc.integer({ min: 1, max: 2 ** 31 }),
            nonce: fc.stringMatching(/^[a-f0-9]{32}$/),
            issuedAt: iso,
            expirationTime: iso,
            notBefore: iso,
            requestId: fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/),
            resources: fc.array(fc.webUrl(), { maxLength: 3 }),
          },
          { requiredKeys: ["domain", "address", "uri", "chainId", "nonce", "issuedAt"] },
        ),
        (fields) => {
          const siwe: SiweFields = { ...fields, version: "1" };
          expect(buildSiweMessage(siwe)).toBe(official(siwe));
        },
      ),
      { numRuns: 50 },
    );
  });
});
