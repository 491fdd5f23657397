import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PaymentRequirements } from "@x402/core/types";
import { choosePaymentOption } from "../../src/mcp/choosePaymentOption.js";
import type { PayerSettings } from "../../src/mcp/parsePayerSettings.js";

const PAYEE = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const OTHER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

const SETTINGS: PayerSettings = {
  keystorePath: "/k",
  passwordPath: "/p",
  svmKeypairPath: undefined,
  svmRpcUrl: undefined,
  networks: ["eip155:31337", "eip155:8453", "eip155:1"],
  payees: [PAYEE],
  assets: undefined,
  maxPerPayment: 1000n,
  maxPerSession: 2500n,
  mainnetConsent: [],
  allowPermit2: false,
  maxAuthorizationSeconds: 300,
  maxBodyBytes: 262_144,
  allowInsecureHttp: false,
};

const option = (overrides: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: "exact",
  network: "eip155:31337",
  amount: "1000",
  asset: TOKEN,
  payTo: PAYEE,
  maxTimeoutSeconds: 60,
  extra: {},
  ...overrides,
});

const refusal = (
  options: PaymentRequirements[],
  settings: Partial<PayerSettings> = {},
  sessionSpent = 0n,
) => {
  const choice = choosePaymentOption(options, { settings: { ...SETTINGS, ...settings }, sessionSpent });
  return "refusal" in choice ? choice.refusal.toJSON() : undefined;
};

describe("choosePaymentOption", () => {
  it("picks the first option that passes every policy", () => {
    const first = option({ network: "eip155:84532" });
    const second = option({ amount: "5" });
    const third = option({ amount: "6" });
    expect(choosePaymentOption([first, second, third], { settings: SETTINGS, sessionSpent: 0n })).toEqual({
      option: second,
    });
  });

  it.each<[string, PaymentRequirements, Partial<PayerSettings>, bigint, string, string | null]>([
    ["network", option({ network: "eip155:84532" }), {}, 0n, "network_not_allowed", "PAY_MCP_EVM_NETWORKS"],
    [
      "mainnet",
      option({ network: "eip155:8453" }),
      {},
      0n,
      "mainnet_consent_required",
      "PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND",
    ],
    [
      "consent for another mainnet",
      option({ network: "eip155:8453" }),
      { mainnetConsent: ["eip155:1"] },
      0n,
      "mainnet_consent_required",
      "PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND",
    ],
    ["payee", option({ payTo: OTHER }), {}, 0n, "payee_not_allowed", "PAY_MCP_EVM_PAYEES"],
    [
      "ethereum without assets",
      option({ network: "eip155:1" }),
      { mainnetConsent: ["eip155:1"] },
      0n,
      "asset_required",
      "PAY_MCP_EVM_ASSETS",
    ],
    ["asset", option({ asset: OTHER }), { assets: [TOKEN] }, 0n, "asset_not_allowed", "PAY_MCP_EVM_ASSETS"],
    ["per payment", option({ amount: "1001" }), {}, 0n, "over_payment_cap", "PAY_MCP_EVM_MAX_PER_PAYMENT"],
    ["session", option({ amount: "1000" }), {}, 1501n, "over_session_cap", "PAY_MCP_EVM_MAX_PER_SESSION"],
    ["amount not an integer", option({ amount: "$0.01" }), {}, 0n, "unsupported_offer", null],
    ["amount negative", option({ amount: "-1" }), {}, 0n, "unsupported_offer", null],
    ["payee not an address", option({ payTo: "bob" }), {}, 0n, "unsupported_offer", null],
    ["amount as an array", option({ amount: ["1000"] as never }), {}, 0n, "unsupported_offer", null],
    [
      "permit2",
      option({ extra: { assetTransferMethod: "permit2" } }),
      {},
      0n,
      "permit2_not_allowed",
      "PAY_MCP_EVM_ALLOW_PERMIT2",
    ],
    [
      "a lifetime above the cap",
      option({ maxTimeoutSeconds: 301 }),
      {},
      0n,
      "authorization_too_long",
      "PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS",
    ],
  ])("refuses (%s) with its code and setting", (_what, offered, settings, spent, code, setting) => {
    expect(refusal([offered], settings, spent)).toMatchObject({ code, setting });
  });

  it("allows a consented mainnet, Ethereum with a listed asset (any case), a payee in any case, the exact caps", () => {
    expect(
      refusal([option({ network: "eip155:8453" })], { mainnetConsent: ["eip155:8453"] }),
    ).toBeUndefined();
    expect(
      refusal([option({ network: "eip155:1", asset: TOKEN.toLowerCase() })], {
        mainnetConsent: ["eip155:1"],
        assets: [TOKEN],
      }),
    ).toBeUndefined();
    expect(refusal([option({ payTo: PAYEE.toLowerCase() })])).toBeUndefined();
    expect(refusal([option({ amount: "1000" })], {}, 1500n)).toBeUndefined();
    expect(refusal([option({ maxTimeoutSeconds: 300 })])).toBeUndefined();
    expect(
      refusal([option({ extra: { assetTransferMethod: "permit2" } })], {
        allowPermit2: true,
        assets: [TOKEN],
      }),
    ).toBeUndefined();
  });

  it("reports the refusal of the option that got furthest through the checks", () => {
    const wrongNetwork = option({ network: "eip155:84532" });
    const tooExpensive = option({ amount: "2000" });
    expect(refusal([wrongNetwork, tooExpensive])).toMatchObject({ code: "over_payment_cap" });
    expect(refusal([tooExpensive, wrongNetwork])).toMatchObject({ code: "over_payment_cap" });
    expect(refusal([])).toMatchObject({ code: "unsupported_offer" });
  });

  it("never picks an option that breaks a policy (random offers and settings)", () => {
    const networks = fc.constantFrom("eip155:31337", "eip155:84532", "eip155:8453", "eip155:1", "eip155:10");
    const addresses = fc.constantFrom(PAYEE, OTHER, TOKEN);
    const offered = fc.record({
      network: networks,
      amount: fc.bigInt({ min: 0n, max: 3000n }).map(String),
      asset: addresses,
      payTo: addresses,
    });
    fc.assert(
      fc.property(
        fc.array(offered, { maxLength: 5 }),
        fc.uniqueArray(networks, { minLength: 1 }),
        fc.uniqueArray(networks),
        fc.option(fc.uniqueArray(addresses, { minLength: 1 }), { nil: undefined }),
        fc.bigInt({ min: 0n, max: 3000n }),
        (offers, allowed, consent, assets, spent) => {
          const settings = { ...SETTINGS, networks: allowed, mainnetConsent: consent, assets };
          const options = offers.map((offer) => option(offer));
          const choice = choosePaymentOption(options, { settings, sessionSpent: spent });
          if ("refusal" in choice) return;
          const picked = choice.option;
          expect(options.indexOf(picked)).toBeGreaterThanOrEqual(0);
          expect(allowed).toContain(picked.network);
          if (!["eip155:31337", "eip155:84532"].includes(picked.network))
            expect(consent).toContain(picked.network);
          expect(picked.payTo).toBe(PAYEE);
          if (assets !== undefined) expect(assets).toContain(picked.asset);
          if (picked.network === "eip155:1") expect(assets).toBeDefined();
          expect(BigInt(picked.amount)).toBeLessThanOrEqual(settings.maxPerPayment);
          expect(spent + BigInt(picked.amount)).toBeLessThanOrEqual(settings.maxPerSession);
          for (const earlier of options.slice(0, options.indexOf(picked))) {
            expect(choosePaymentOption([earlier], { settings, sessionSpent: spent })).toHaveProperty(
              "refusal",
            );
          }
        },
      ),
    );
  });
});

describe("choosePaymentOption on Solana: the same caps, base58 compared exactly (case-sensitive)", () => {
  const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
  const MINT = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
  const SOL_PAYEE = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const FEE_PAYER = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";
  const SOLANA: Partial<PayerSettings> = {
    svmKeypairPath: "/s",
    networks: [DEVNET, MAINNET],
    payees: [SOL_PAYEE],
    assets: [MINT],
  };
  const sol = (overrides: Partial<PaymentRequirements> = {}): PaymentRequirements =>
    option({ network: DEVNET, asset: MINT, payTo: SOL_PAYEE, extra: { feePayer: FEE_PAYER }, ...overrides });

  it("picks a Solana option under the caps", () => {
    const offered = sol({ amount: "1000" });
    expect(
      choosePaymentOption([offered], { settings: { ...SETTINGS, ...SOLANA }, sessionSpent: 1500n }),
    ).toEqual({ option: offered });
  });

  it.each<[string, PaymentRequirements, Partial<PayerSettings>, bigint, string]>([
    ["a network not listed", sol(), { networks: ["eip155:31337"] }, 0n, "network_not_allowed"],
    ["Solana mainnet without consent", sol({ network: MAINNET }), {}, 0n, "mainnet_consent_required"],
    ["a payee not listed", sol({ payTo: FEE_PAYER }), {}, 0n, "payee_not_allowed"],
    [
      "a base58 payee in another case",
      sol({ payTo: SOL_PAYEE.replace("Wz", "wZ") }),
      {},
      0n,
      "payee_not_allowed",
    ],
    ["a mint not listed", sol({ asset: SOL_PAYEE }), {}, 0n, "asset_not_allowed"],
    ["a lifetime above the cap", sol({ maxTimeoutSeconds: 301 }), {}, 0n, "authorization_too_long"],
    ["a price above the payment cap", sol({ amount: "1001" }), {}, 0n, "over_payment_cap"],
    ["a price beyond the session cap", sol({ amount: "1000" }), {}, 1501n, "over_session_cap"],
    ["no fee payer", sol({ extra: {} }), {}, 0n, "unsupported_offer"],
    ["an EVM payee on Solana", sol({ payTo: PAYEE }), {}, 0n, "unsupported_offer"],
    ["scheme exact-pq on Solana", sol({ scheme: "exact-pq" }), {}, 0n, "unsupported_offer"],
  ])("refuses %s", (_name, offered, settings, spent, code) => {
    expect(refusal([offered], { ...SOLANA, ...settings }, spent)?.code).toBe(code);
  });

  it("never picks a Solana option above a cap or off the lists (random amounts and spending)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 5000n }),
        fc.bigInt({ min: 0n, max: 5000n }),
        fc.constantFrom(SOL_PAYEE, FEE_PAYER),
        (amount, spent, payTo) => {
          const choice = choosePaymentOption([sol({ amount: String(amount), payTo })], {
            settings: { ...SETTINGS, ...SOLANA },
            sessionSpent: spent,
          });
          const allowed = amount <= 1000n && spent + amount <= 2500n && payTo === SOL_PAYEE;
          expect("option" in choice).toBe(allowed);
        },
      ),
    );
  });
});
