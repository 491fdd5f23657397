import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { x402, x402Node } from "../../src/index.js";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";
import { decodeMaskDocument, maskRefOf } from "../../src/protocol/cbor/masks/RevelationMask.js";

const base = `facilitator:
  url: http://127.0.0.1:4022
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:3001
cbor:
  merchantPseudonym: m
  humanityIssuers: ["${"ab".repeat(32)}"]
routes:
  GET /x:
    cbor: `;

function load(route: string) {
  return parseConfig(`${base}${route}\n`, { file: "gateway.yaml", env: {} });
}

describe("the revelationMask route setting", () => {
  it("derives the ref from the mask (parts not named are Open) and keeps the document for the offer", () => {
    const config = load(
      `{ currency: USDC, amount: "1", revelationMask: { intent: { subject: Encrypted, time: ZK }, receipt: { subject: Commit } } }`,
    );
    const offer = buildRouteTable(config).routes[0]!.cbor!;
    expect(offer.revelationMask.intent).toMatchObject({ subject: "Encrypted", time: "ZK", quantity: "Open" });
    expect(offer.revelationMaskRef).toMatch(/^mask:v0\.3:sha256:[0-9a-f]{64}$/);
    expect(offer.revelationMaskRef).toBe(maskRefOf(decodeMaskDocument(offer.revelationMaskDocument!)));
    const plain = buildRouteTable(load(`{ currency: USDC, amount: "1" }`)).routes[0]!.cbor!;
    expect(plain).toMatchObject({
      revelationMaskRef: "mask:v0.3:open-fields",
      revelationMaskDocument: undefined,
    });
  });

  it.each([
    [
      "a ref that names no mask of the route",
      `{ currency: USDC, amount: "1", revelationMaskRef: "mask:v0.3:mine" }`,
      /names no mask of this route/,
    ],
    [
      "a hidden quantity",
      `{ currency: USDC, amount: "1", revelationMask: { intent: { quantity: Commit } } }`,
      /v0.3 allows Open here/,
    ],
    [
      "a hidden payer shown in the receipt",
      `{ currency: USDC, amount: "1", revelationMask: { intent: { subject: Commit } } }`,
      /must be Commit in the receipt/,
    ],
    [
      "an unknown tag",
      `{ currency: USDC, amount: "1", revelationMask: { intent: { time: Secret } } }`,
      /time/,
    ],
    [
      "an unknown part",
      `{ currency: USDC, amount: "1", revelationMask: { intent: { amount: Commit } } }`,
      /amount/,
    ],
    [
      "a hidden payer behind the humanity gate",
      `{ currency: USDC, amount: "1", acceptsHumanityGate: true, revelationMask: { intent: { subject: Commit }, receipt: { subject: Commit } } }`,
      /cannot go with acceptsHumanityGate/,
    ],
  ])("the config file refuses %s, at load", (_name, route, message) => {
    let caught: unknown;
    try {
      load(route);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toMatch(message);
  });

  it("x402() and x402Node() refuse a mask v0.3 does not allow, at start-up", () => {
    const options = {
      facilitator: { url: "http://127.0.0.1:4022" },
      payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      network: "eip155:84532" as const,
      cbor: { merchantPseudonym: "m" },
      routes: {
        "GET /x": {
          cbor: {
            currency: "USDC" as const,
            amount: "1",
            revelationMask: { claims: { subject: "Commit" as const } },
          },
        },
      },
    };
    expect(() => x402(options)).toThrow(/claims\.subject/);
    expect(() => x402Node(options)).toThrow(/claims\.subject/);
  });
});
