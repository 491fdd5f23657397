import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { payToProblem } from "../../src/pricing/payToProblem.js";
import { configProblems, x402Problems } from "../support/settingsProblems.js";

// The same settings go through x402() and the gateway's config loader: both must refuse them alike.
const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const ISSUER = "20e8a73b3e1450543d28acffa32b0e4c1483302efb8535f314ba32c255ff0ed4";
const RECOGNITION = { rpcUrl: "http://127.0.0.1:5050", contract: "0x1" };
const base = {
  facilitator: { url: "https://facilitator.test" },
  payTo: PAY_TO,
  network: "eip155:84532",
  publicUrl: "https://api.test",
  cbor: { merchantPseudonym: "merchant:test", humanityIssuers: [ISSUER] } as Record<string, unknown>,
  routes: { "GET /x": { price: "$0.01" } } as Record<string, unknown>,
};
type Settings = Omit<typeof base, "facilitator" | "payTo" | "publicUrl"> & Record<string, unknown>;
const humans = { currency: "USDC", amount: "1000", acceptsHumanityGate: true };

const refused: Array<[string, Settings, RegExp]> = [
  [
    "a plain-http facilitator off loopback",
    { ...base, facilitator: { url: "http://facilitator.example.com" } },
    /^facilitator\.url: expected an https:\/\/ URL \(plain http is allowed only on loopback\)$/,
  ],
  [
    "an ftp facilitator",
    { ...base, facilitator: { url: "ftp://facilitator.example.com" } },
    /^facilitator\.url: expected an https/,
  ],
  [
    "a facilitator URL that is no URL",
    { ...base, facilitator: { url: "facilitator" } },
    /^facilitator\.url: expected the facilitator's base URL/,
  ],
  [
    "a plain-http RPC node off loopback",
    { ...base, rpcUrls: { "eip155:84532": "http://rpc.example.com" } },
    /^rpcUrls\["eip155:84532"\]: expected an https/,
  ],
  [
    "an ftp CBOR facilitator",
    { ...base, cbor: { ...base.cbor, facilitator: { url: "ftp://cbor.example.com" } } },
    /^cbor\.facilitator\.url: expected an https/,
  ],
  [
    "payTo 0x123",
    { ...base, payTo: "0x123" },
    /^payTo: expected a 0x-prefixed 20-byte hex address .*"0x123"/,
  ],
  ["payTo without 0x", { ...base, payTo: PAY_TO.slice(2) }, /^payTo: expected a 0x-prefixed/],
  ["payTo one digit long", { ...base, payTo: `${PAY_TO}0` }, /^payTo: expected a 0x-prefixed/],
  ["payTo with a space", { ...base, payTo: ` ${PAY_TO}` }, /^payTo: expected a 0x-prefixed/],
  ["the zero address", { ...base, payTo: `0x${"0".repeat(40)}` }, /^payTo: the zero address/],
  ["a wrong EIP-55 checksum", { ...base, payTo: `${PAY_TO.slice(0, -1)}c` }, /^payTo: .*EIP-55/],
  [
    "a route's payTo",
    { ...base, routes: { "GET /x": { price: "$0.01", payTo: "0xabc" } } },
    /^routes\["GET \/x"\]\.payTo: expected a 0x-prefixed/,
  ],
  [
    "an option's payTo",
    { ...base, routes: { "GET /x": { accepts: [{ price: "$0.01", payTo: "bob" }] } } },
    /^routes\["GET \/x"\]\.accepts\[0\]\.payTo: expected a 0x-prefixed/,
  ],
  [
    "a non-EVM payTo inherited onto an EVM route",
    {
      ...base,
      network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      routes: { "GET /x": { price: "$0.01", network: "eip155:84532" } },
    },
    /^routes\["GET \/x"\]\.network: the payTo it inherits \("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"\) cannot be paid on eip155:84532/,
  ],
  [
    "a humans-only route with a JSON price",
    { ...base, routes: { "GET /h": { price: "$0.01", cbor: humans } } },
    /^routes\["GET \/h"\]\.cbor\.acceptsHumanityGate: a humans-only route .*routes\["GET \/h"\]\.price.* remove price or the gate/,
  ],
  [
    "a humans-only route with JSON accepts",
    { ...base, routes: { "GET /h": { accepts: [{ price: "$0.01" }], cbor: humans } } },
    /^routes\["GET \/h"\]\.cbor\.acceptsHumanityGate: .*accepts/,
  ],
  [
    "a humans-only route that recognizes payers",
    { ...base, routes: { "GET /h": { cbor: humans, recognition: RECOGNITION } } },
    /^routes\["GET \/h"\]\.recognition: a humans-only route .*cannot let recognized payers in/,
  ],
  [
    "a humans-only route inheriting the top-level recognition",
    { ...base, recognition: RECOGNITION, routes: { "GET /h": { cbor: humans } } },
    /^routes\["GET \/h"\]\.recognition: .*inherits the top-level recognition.*recognition: false/,
  ],
  [
    "recognition without publicUrl or allowedHosts",
    { ...base, publicUrl: undefined, recognition: RECOGNITION },
    /^publicUrl: recognition needs publicUrl \(or allowedHosts\): a sign-in proof is bound/,
  ],
  [
    "a route's recognition without publicUrl or allowedHosts",
    { ...base, publicUrl: undefined, routes: { "GET /x": { price: "$0.01", recognition: RECOGNITION } } },
    /^publicUrl: recognition needs publicUrl \(or allowedHosts\)/,
  ],
  [
    "a revocation hold shorter than the default recognition cache",
    { ...base, recognition: RECOGNITION, revocation: { holdMs: 60_000 } },
    /^revocation\.holdMs: expected at least 4200000 \(positiveTtlMs \+ staleIfErrorMs .*\), got 60000/,
  ],
  [
    "a revocation hold shorter than a route's recognition cache",
    {
      ...base,
      revocation: { holdMs: 100_000_000 },
      routes: { "GET /x": { price: "$0.01", recognition: { ...RECOGNITION, positiveTtlMs: 100_000_000 } } },
    },
    /^revocation\.holdMs: expected at least 103600000 /,
  ],
  [
    "a plain-http recognition node off loopback",
    { ...base, recognition: { ...RECOGNITION, rpcUrl: "http://rpc.example.com" } },
    /^recognition\.rpcUrl: expected an https:\/\/ URL/,
  ],
  [
    "a route's plain-http announced recognition node",
    {
      ...base,
      routes: {
        "GET /x": {
          price: "$0.01",
          recognition: { ...RECOGNITION, announceRpcUrl: "http://rpc.example.com" },
        },
      },
    },
    /^routes\["GET \/x"\]\.recognition\.announceRpcUrl: expected an https/,
  ],
];

describe("one validation for x402() options and the gateway config", () => {
  it.each(refused)("refuses %s in both, naming the key", (_name, settings, expected) => {
    const fromX402 = x402Problems(settings);
    const fromConfig = configProblems(settings);
    expect(
      fromX402.some((line) => expected.test(line)),
      fromX402.join("\n"),
    ).toBe(true);
    expect(
      fromConfig.some((line) => expected.test(line)),
      fromConfig.join("\n"),
    ).toBe(true);
  });

  it.each<[string, Settings]>([
    ["a loopback plain-http facilitator", { ...base, facilitator: { url: "http://127.0.0.1:4022" } }],
    ["a lower-case payTo", { ...base, payTo: PAY_TO.toLowerCase() }],
    ["a checksummed payTo", base],
    [
      "a non-EVM payTo on a non-EVM network",
      {
        ...base,
        network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
        routes: { "GET /x": { accepts: [{ price: { amount: "1", asset: "mint" } }] } },
      },
    ],
    [
      "recognition with allowedHosts instead of publicUrl",
      { ...base, publicUrl: undefined, allowedHosts: ["api.test"], recognition: RECOGNITION },
    ],
    [
      "recognition turned off on every route",
      { ...base, publicUrl: undefined, routes: { "GET /x": { price: "$0.01", recognition: false } } },
    ],
    [
      "a revocation hold as long as the recognition cache",
      { ...base, recognition: RECOGNITION, revocation: { holdMs: 4_200_000 } },
    ],
    ["a humans-only route offered in CBOR only", { ...base, routes: { "GET /h": { cbor: humans } } }],
    [
      "a humans-only route opting out of the top-level recognition",
      { ...base, recognition: RECOGNITION, routes: { "GET /h": { cbor: humans, recognition: false } } },
    ],
  ])("accepts %s in both", (_name, settings) => {
    expect(x402Problems(settings)).toEqual([]);
    expect(configProblems(settings)).toEqual([]);
  });
});

describe("payToProblem", () => {
  const hex = fc.stringMatching(/^[0-9a-f]{40}$/);

  it("accepts every lower-case 20-byte address but the zero one", () => {
    fc.assert(
      fc.property(hex, (digits) => {
        const problem = payToProblem(`0x${digits}`, "eip155:8453");
        expect(problem === undefined).toBe(!/^0+$/.test(digits));
      }),
    );
  });

  it("refuses every string that is not 0x + 40 hex digits on an EVM network", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (text) => {
        fc.pre(!/^0x[0-9a-fA-F]{40}$/.test(text));
        expect(payToProblem(text, "eip155:1")).toMatch(/expected a 0x-prefixed 20-byte hex address/);
      }),
    );
  });

  it("takes a mixed-case address only when it is the EIP-55 checksum", () => {
    fc.assert(
      fc.property(hex, fc.nat(39), (digits, at) => {
        fc.pre(/[a-f]/.test(digits[at] ?? "") && !/^0+$/.test(digits));
        // One letter upper-cased among lower-case ones: mixed case, valid only if it is the checksum.
        const flipped = `0x${digits.slice(0, at)}${digits[at]?.toUpperCase()}${digits.slice(at + 1)}`;
        const problem = payToProblem(flipped, "eip155:1");
        if (getAddress(`0x${digits}`) === flipped) expect(problem).toBeUndefined();
        else expect(problem).toMatch(/EIP-55/);
      }),
    );
  });

  it("on networks other than EVM and Solana takes 1–128 printable characters without spaces", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 140 }), (text) => {
        const ok = /^[\x21-\x7e]{1,128}$/.test(text);
        expect(payToProblem(text, "cosmos:cosmoshub-4") === undefined).toBe(ok);
      }),
    );
  });
});
