import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";

const base = `facilitator:
  url: http://127.0.0.1:4022
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:3001
`;

function problemsOf(text: string): string[] {
  try {
    parseConfig(text, { file: "gateway.yaml", env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split("\n").slice(1);
  }
  throw new Error("expected a ConfigError");
}

describe("cbor in the config file", () => {
  it("a route may offer CBOR only, with shared defaults filled in", () => {
    const config = parseConfig(
      `${base}cbor:
  merchantPseudonym: merchant:acme
  facilitator: { url: "http://127.0.0.1:4023" }
routes:
  GET /api/apy:
    cbor: { currency: STRK, amount: "1000000000000000000" }
`,
      { file: "gateway.yaml", env: {} },
    );
    expect(config.cbor).toMatchObject({ deadlineSeconds: 300, skewSeconds: 30 });
    const [route] = buildRouteTable(config).routes;
    expect(route?.requirements).toEqual([]);
    expect(route?.cbor).toMatchObject({
      currency: "STRK",
      amount: 10n ** 18n,
      merchantPseudonym: "merchant:acme",
      serviceId: "GET /api/apy",
    });
  });

  it("a price past 64 bits (20 STRK) is kept exact, up to 2^256 - 1", () => {
    for (const amount of [20n * 10n ** 18n, 2n ** 256n - 1n]) {
      const config = parseConfig(
        `${base}routes:\n  GET /x:\n    cbor: { currency: STRK, amount: "${amount}", merchantPseudonym: m }\n`,
        { file: "gateway.yaml", env: {} },
      );
      expect(buildRouteTable(config).routes[0]?.cbor?.amount).toBe(amount);
    }
  });

  it.each([
    [
      "an unknown currency",
      `routes:\n  GET /x:\n    cbor: { currency: EUR, amount: "1" }\n`,
      /routes\["GET \/x"\]\.cbor\.currency/,
    ],
    [
      "a zero amount",
      `routes:\n  GET /x:\n    cbor: { currency: USDC, amount: "0", merchantPseudonym: m }\n`,
      /cbor\.amount: a CBOR price cannot be zero/,
    ],
    [
      "no merchant pseudonym anywhere",
      `routes:\n  GET /x:\n    cbor: { currency: USDC, amount: "1" }\n`,
      /routes\["GET \/x"\]\.cbor: needs merchantPseudonym/,
    ],
    [
      "a lifetime under a minute",
      `cbor: { deadlineSeconds: 30 }\nroutes:\n  GET /x:\n    price: $0.01\n`,
      /cbor\.deadlineSeconds/,
    ],
    [
      "a plain-http CBOR facilitator off loopback",
      `cbor: { facilitator: { url: "http://example.com" } }\nroutes:\n  GET /x:\n    price: $0.01\n`,
      /cbor\.facilitator\.url: expected an https:\/\/ URL/,
    ],
    [
      "an amount over 2^256 - 1",
      `routes:\n  GET /x:\n    cbor: { currency: USDC, amount: "${2n ** 256n}", merchantPseudonym: m }\n`,
      /cbor: the amount is above 2\^256 - 1/,
    ],
  ])("refuses %s, naming the key", (_name, tail, expected) => {
    expect(problemsOf(`${base}${tail}`).join("\n")).toMatch(expected);
  });
});
