import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { merchantPseudonymProblem } from "../../src/pricing/merchantPseudonymIssues.js";
import { runCli } from "../cli/support/runCli.js";
import { configProblems, x402Problems } from "../support/settingsProblems.js";

// The seed: merchant_pseudonym is "never the raw merchant wallet". x402(), the config file and
// check-config refuse the same pseudonyms, naming the key.
const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const ROUTE_PAY_TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const STARKNET = "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d";
const base = {
  facilitator: { url: "https://facilitator.test" },
  payTo: PAY_TO,
  network: "eip155:84532",
  cbor: { merchantPseudonym: "merchant:test" } as Record<string, unknown>,
  routes: {
    "GET /x": { price: "$0.01", cbor: { currency: "USDC", amount: "1000" } },
    "GET /y": { price: "$0.01", payTo: ROUTE_PAY_TO, cbor: { currency: "USDC", amount: "1000" } },
  } as Record<string, unknown>,
};

const withShared = (pseudonym: string) => ({ ...base, cbor: { merchantPseudonym: pseudonym } });
const withRoute = (pseudonym: string) => ({
  ...base,
  routes: {
    ...base.routes,
    "GET /z": { price: "$0.01", cbor: { currency: "USDC", amount: "1", merchantPseudonym: pseudonym } },
  },
});

const refused: Array<[string, typeof base, RegExp]> = [
  ["the payTo itself", withShared(PAY_TO), /^cbor\.merchantPseudonym: .*names the payee wallet/],
  ["the payTo lower-cased", withShared(PAY_TO.toLowerCase()), /^cbor\.merchantPseudonym: .*payee wallet/],
  ["the payTo upper-cased", withShared(PAY_TO.toUpperCase()), /^cbor\.merchantPseudonym: .*payee wallet/],
  ["the payTo with spaces", withShared(` ${PAY_TO} `), /^cbor\.merchantPseudonym: .*payee wallet/],
  ["the payTo inside a name", withShared(`merchant:${PAY_TO}`), /^cbor\.merchantPseudonym: .*payee wallet/],
  ["a route's payTo", withShared(ROUTE_PAY_TO.toLowerCase()), /^cbor\.merchantPseudonym: .*payee wallet/],
  ["another EVM address", withShared(`0x${"ab".repeat(20)}`), /^cbor\.merchantPseudonym: .*wallet address/],
  ["an EVM address without 0x", withShared("ab".repeat(20)), /^cbor\.merchantPseudonym: .*wallet address/],
  ["a Starknet address", withShared(STARKNET), /^cbor\.merchantPseudonym: .*wallet address/],
  ["a short felt", withShared("0x1234"), /^cbor\.merchantPseudonym: .*wallet address/],
  [
    "a Starknet address, 0X",
    withShared(`0X${STARKNET.slice(2)}`),
    /^cbor\.merchantPseudonym: .*wallet address/,
  ],
  [
    "a route's pseudonym that is the payTo",
    withRoute(PAY_TO),
    /^routes\["GET \/z"\]\.cbor\.merchantPseudonym: .*payee wallet/,
  ],
  [
    "a route's pseudonym that is an address",
    withRoute(STARKNET),
    /^routes\["GET \/z"\]\.cbor\.merchantPseudonym: .*wallet address/,
  ],
];

describe("merchant_pseudonym is never the raw merchant wallet", () => {
  it.each(refused)("x402() and the config file refuse %s, naming the key", (_name, settings, pattern) => {
    for (const problems of [x402Problems(settings), configProblems(settings)]) {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(pattern);
    }
  });

  it.each(["merchant:acme", "acme", "0xcafe-shop", "merchant:0x12", "café", "0x"])(
    "accepts the name %j",
    (pseudonym) => {
      expect(x402Problems(withShared(pseudonym))).toEqual([]);
      expect(configProblems(withShared(pseudonym))).toEqual([]);
    },
  );

  it("property: any string that contains a payee, in any case, is refused; any address shape too", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.boolean(), (a, b, upper) => {
        const payee = upper ? PAY_TO.toUpperCase() : PAY_TO.toLowerCase();
        expect(merchantPseudonymProblem(`${a}${payee}${b}`, [PAY_TO])).toMatch(/payee wallet/);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^(0x[0-9a-fA-F]{1,64}|[0-9a-fA-F]{40})$/), (address) => {
        expect(merchantPseudonymProblem(address, [PAY_TO])).toBeDefined();
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^merchant:[a-z-]{1,30}$/), (name) => {
        expect(merchantPseudonymProblem(name, [PAY_TO])).toBeUndefined();
      }),
    );
  });

  it("check-config exits 1 naming the key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pseudonym-"));
    const file = join(dir, "gateway.yaml");
    await writeFile(
      file,
      stringify({ ...withShared(PAY_TO), upstreams: [{ url: "http://127.0.0.1:3001" }] }),
    );
    const result = await runCli("src/cli/x402-gateway.ts", ["check-config", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cbor\.merchantPseudonym: .*names the payee wallet/);
  });
});
