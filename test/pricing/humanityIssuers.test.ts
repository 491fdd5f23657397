import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { x402 } from "../../src/index.js";
import { humanityIssuersSchema, parseHumanityIssuers } from "../../src/pricing/humanityIssuers.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const ed = hex(createSigningKey("ed25519", new Uint8Array(32).fill(7)).publicKey);
const pq = hex(createSigningKey("ml-dsa-65", new Uint8Array(32).fill(8)).publicKey);
const other = hex(createSigningKey("ed25519", new Uint8Array(32).fill(9)).publicKey);

describe("humanityIssuers (issuer keys in hex)", () => {
  it("reads Ed25519 (64 hex) and ML-DSA-65 (3904 hex) keys, either case, in order", () => {
    const keys = parseHumanityIssuers([ed, pq.toUpperCase(), other]);
    expect(keys.map((key) => key.length)).toEqual([32, 1952, 32]);
    expect(hex(keys[0]!)).toBe(ed);
    expect(hex(keys[1]!)).toBe(pq);
    expect(parseHumanityIssuers([])).toEqual([]);
    expect(humanityIssuersSchema.safeParse([ed, pq]).success).toBe(true);
  });

  const corpus: Array<[string, unknown, RegExp]> = [
    ["an empty string", [""], /\[0\].*Ed25519 public key \(64 hex characters\).*got 0/],
    ["63 hex characters", [ed.slice(1)], /\[0\].*got 63/],
    ["65 hex characters", [`${ed}0`], /\[0\].*got 65/],
    ["an Ed25519 key and one byte more", [`${ed}00`], /got 66/],
    ["an ML-DSA-65 key minus a byte", [pq.slice(2)], /got 3902/],
    ["a 0x prefix", [`0x${ed}`], /without 0x/],
    ["a 0X prefix", [`0X${ed}`], /without 0x/],
    ["a non-hex character", [`${ed.slice(0, 63)}g`], /hex digits only/],
    ["spaces", [` ${ed.slice(1)}`], /hex digits only/],
    ["a trailing newline", [`${ed.slice(1)}\n`], /hex digits only/],
    ["base64 of the key", [Buffer.from(ed, "hex").toString("base64")], /hex digits only/],
    ["a unicode digit", [`${ed.slice(0, 63)}٣`], /hex digits only/],
    ["the same key twice", [ed, other, ed], /\[2\].*same key as entry 0/],
    ["the same key in another case", [ed, ed.toUpperCase()], /\[1\].*same key as entry 0/],
    ["a bad key after good ones", [ed, pq, "zz"], /\[2\]/],
  ];
  it.each(corpus)("refuses %s", (_name, list, message) => {
    expect(() => parseHumanityIssuers(list as string[])).toThrow(message);
    const parsed = humanityIssuersSchema.safeParse(list);
    expect(parsed.success).toBe(false);
  });

  it.each([
    ["not a list", ed],
    ["a number in the list", [42]],
    ["bytes in the list", [new Uint8Array(32)]],
    ["null", null],
  ])("the schema refuses %s", (_name, value) => {
    expect(humanityIssuersSchema.safeParse(value).success).toBe(false);
  });

  it("property: any 32 or 1952 distinct bytes in hex are read back exactly; any other length is refused", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uint8Array({ minLength: 32, maxLength: 32 }), {
          maxLength: 4,
          selector: (bytes) => hex(bytes),
        }),
        (keys) => {
          expect(parseHumanityIssuers(keys.map(hex)).map(hex)).toEqual(keys.map(hex));
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }).filter((bytes) => bytes.length !== 32 && bytes.length !== 1952),
        (bytes) => {
          expect(() => parseHumanityIssuers([hex(bytes)])).toThrow(/got \d+ characters/);
        },
      ),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const ok = /^[0-9a-fA-F]{64}$/.test(text);
        expect(humanityIssuersSchema.safeParse([text]).success).toBe(ok);
      }),
    );
  });
});

const base = `facilitator:
  url: http://127.0.0.1:4022
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:3001
`;

describe("humanity gate settings", () => {
  it("the route's list replaces the shared one; the gate on with issuers compiles", () => {
    const config = parseConfig(
      `${base}cbor:
  merchantPseudonym: merchant:acme
  humanityIssuers: ["${ed}"]
routes:
  GET /shared:
    cbor: { currency: USDC, amount: "1", acceptsHumanityGate: true }
  GET /own:
    cbor: { currency: USDC, amount: "1", acceptsHumanityGate: true, humanityIssuers: ["${pq}", "${other}"] }
  GET /off:
    cbor: { currency: USDC, amount: "1" }
`,
      { file: "gateway.yaml", env: {} },
    );
    const routes = new Map(buildRouteTable(config).routes.map((route) => [route.key, route.cbor!]));
    expect(routes.get("GET /shared")?.humanityIssuers.map(hex)).toEqual([ed]);
    expect(routes.get("GET /own")?.humanityIssuers.map(hex)).toEqual([pq, other]);
    expect(routes.get("GET /off")).toMatchObject({ acceptsHumanityGate: false });
  });

  const noIssuer = /acceptsHumanityGate is on but no humanity issuer is trusted/;
  it.each([
    ["no issuer anywhere", "", `{ currency: USDC, amount: "1", acceptsHumanityGate: true }`, noIssuer],
    [
      "an empty route list overriding the shared one",
      `  humanityIssuers: ["${ed}"]\n`,
      `{ currency: USDC, amount: "1", acceptsHumanityGate: true, humanityIssuers: [] }`,
      noIssuer,
    ],
    [
      "a short shared key",
      `  humanityIssuers: ["${ed.slice(2)}"]\n`,
      `{ currency: USDC, amount: "1" }`,
      /cbor\.humanityIssuers\[0\].*got 62 characters/,
    ],
    [
      "a duplicate route key",
      "",
      `{ currency: USDC, amount: "1", humanityIssuers: ["${ed}", "${ed}"] }`,
      /routes\["GET \/x"\]\.cbor\.humanityIssuers\[1\].*same key as entry 0/,
    ],
  ])("the config file refuses %s, at load", (_name, shared, route, message) => {
    const text = `${base}cbor:\n  merchantPseudonym: m\n${shared}routes:\n  GET /x:\n    cbor: ${route}\n`;
    let caught: unknown;
    try {
      parseConfig(text, { file: "gateway.yaml", env: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toMatch(message);
  });

  it("x402() refuses a gated route nobody can pay, at start-up", () => {
    const options = {
      facilitator: { url: "http://127.0.0.1:4022" },
      payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      network: "eip155:84532" as const,
      cbor: { merchantPseudonym: "m" },
      routes: { "GET /x": { cbor: { currency: "USDC" as const, amount: "1", acceptsHumanityGate: true } } },
    };
    expect(() => x402(options)).toThrow(noIssuer);
    expect(() =>
      x402({ ...options, cbor: { merchantPseudonym: "m", humanityIssuers: [`${ed}zz`] } }),
    ).toThrow(/humanityIssuers\[0\]/);
    expect(() => x402({ ...options, cbor: { merchantPseudonym: "m", humanityIssuers: [ed] } })).not.toThrow();
  });
});
