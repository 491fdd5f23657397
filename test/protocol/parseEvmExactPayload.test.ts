import { describe, expect, it } from "vitest";
import { parseEvmExactPayload } from "../../src/protocol/parseEvmExactPayload.js";
import { evmExactPayloadSchema } from "../../src/protocol/schemas.js";

const valid = {
  signature: `0x${"ab".repeat(65)}`,
  authorization: {
    from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    value: "1000",
    validAfter: "0",
    validBefore: "99999999999",
    nonce: `0x${"cd".repeat(32)}`,
  },
};

describe("parseEvmExactPayload", () => {
  it.each([
    ["a valid payload", valid],
    ["a payload without a signature", { authorization: valid.authorization }],
    ["an empty object", {}],
    ["null", null],
    ["a string", "0xabc"],
    ["an array", [valid]],
  ])("answers as the schema does for %s", (_name, payload) => {
    const expected = evmExactPayloadSchema.safeParse(payload);
    const parsed = parseEvmExactPayload(payload);
    expect(parsed.success).toBe(expected.success);
    expect(parsed.data).toEqual(expected.data);
    expect(parsed.error?.issues).toEqual(expected.error?.issues);
  });

  it("parses one payload object once: later reads get the same answer", () => {
    const payload = structuredClone(valid);
    const first = parseEvmExactPayload(payload);
    expect(parseEvmExactPayload(payload)).toBe(first);
    expect(parseEvmExactPayload(structuredClone(valid))).not.toBe(first);
  });
});
