import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { PAYER_ENV } from "../../src/mcp/errors.js";
import { parsePayerSettings } from "../../src/mcp/parsePayerSettings.js";

const PAYEE = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const ASSET = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

const VALID: Record<string, string> = {
  PAY_MCP_EVM_KEYSTORE_PATH: "/home/agent/.x402/payer.json",
  PAY_MCP_EVM_PASSWORD_PATH: "/home/agent/.x402/payer.pass",
  PAY_MCP_EVM_NETWORKS: "eip155:84532",
  PAY_MCP_EVM_PAYEES: PAYEE,
  PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
  PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
};

function errorsFor(name: string, value: string | undefined) {
  const result = parsePayerSettings({ ...VALID, [name]: value });
  return result.ok ? [] : result.errors.map((error) => error.toJSON());
}

describe("parsePayerSettings", () => {
  it("reads the seed's example configuration", () => {
    expect(parsePayerSettings(VALID)).toEqual({
      ok: true,
      settings: {
        keystorePath: "/home/agent/.x402/payer.json",
        passwordPath: "/home/agent/.x402/payer.pass",
        networks: ["eip155:84532"],
        payees: [PAYEE],
        maxPerPayment: 1_000_000n,
        maxPerSession: 5_000_000n,
        mainnetConsent: [],
        assets: undefined,
        allowPermit2: false,
        maxAuthorizationSeconds: 300,
        maxBodyBytes: 262_144,
        allowInsecureHttp: false,
      },
    });
  });

  it("reads the optional limits, and Permit2 only with an asset list", () => {
    const result = parsePayerSettings({
      ...VALID,
      PAY_MCP_EVM_ALLOW_PERMIT2: "true",
      PAY_MCP_EVM_ASSETS: ASSET,
      PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS: "600",
      PAY_MCP_EVM_MAX_BODY_BYTES: "4096",
    });
    expect(result.ok && result.settings).toMatchObject({
      allowPermit2: true,
      maxAuthorizationSeconds: 600,
      maxBodyBytes: 4096,
    });
    expect(errorsFor("PAY_MCP_EVM_ALLOW_PERMIT2", "true")).toEqual([
      expect.objectContaining({
        code: "invalid_setting",
        setting: "PAY_MCP_EVM_ALLOW_PERMIT2",
        message: expect.stringContaining("PAY_MCP_EVM_ASSETS"),
      }),
    ]);
    expect(errorsFor("PAY_MCP_EVM_ALLOW_PERMIT2", "false")).toEqual([]);
  });

  it("allows plain HTTP (PAY_MCP_EVM_ALLOW_INSECURE_HTTP) only when every network is a test network", () => {
    const allowed = parsePayerSettings({
      ...VALID,
      PAY_MCP_EVM_NETWORKS: "eip155:84532,eip155:31337",
      PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true",
    });
    expect(allowed.ok && allowed.settings.allowInsecureHttp).toBe(true);
    const mainnet = parsePayerSettings({
      ...VALID,
      PAY_MCP_EVM_NETWORKS: "eip155:84532,eip155:8453",
      PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true",
    });
    expect(mainnet).toEqual({
      ok: false,
      errors: [
        expect.objectContaining({
          code: "invalid_setting",
          setting: "PAY_MCP_EVM_ALLOW_INSECURE_HTTP",
          message: expect.stringMatching(/test networks only, and PAY_MCP_EVM_NETWORKS names eip155:8453$/),
        }),
      ],
    });
    expect(
      parsePayerSettings({
        ...VALID,
        PAY_MCP_EVM_NETWORKS: "eip155:1",
        PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "false",
      }).ok,
    ).toBe(true);
  });

  it("trims values and list entries, drops duplicates, checksums addresses", () => {
    const result = parsePayerSettings({
      ...VALID,
      PAY_MCP_EVM_NETWORKS: "  eip155:8453 ,eip155:1,\teip155:8453 ",
      PAY_MCP_EVM_PAYEES: ` ${PAYEE.toLowerCase()} , ${PAYEE} `,
      PAY_MCP_EVM_ASSETS: ASSET.toUpperCase().replace("0X", "0x"),
      PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND: "eip155:8453",
      PAY_MCP_EVM_MAX_PER_PAYMENT: " 42\n",
    });
    expect(result.ok && result.settings).toMatchObject({
      networks: ["eip155:8453", "eip155:1"],
      payees: [PAYEE],
      assets: [ASSET],
      mainnetConsent: ["eip155:8453"],
      maxPerPayment: 42n,
    });
  });

  it("treats an empty or blank optional variable as unset", () => {
    const result = parsePayerSettings({
      ...VALID,
      PAY_MCP_EVM_ASSETS: " ",
      PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND: "",
    });
    expect(result.ok && result.settings).toMatchObject({ assets: undefined, mainnetConsent: [] });
  });

  it("reports every invalid variable, each naming itself, in the table's order", () => {
    const result = parsePayerSettings({ PAY_MCP_EVM_ASSETS: "x" });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((error) => error.setting)).toEqual([
      "PAY_MCP_EVM_KEYSTORE_PATH",
      "PAY_MCP_EVM_NETWORKS",
      "PAY_MCP_EVM_PAYEES",
      "PAY_MCP_EVM_MAX_PER_PAYMENT",
      "PAY_MCP_EVM_MAX_PER_SESSION",
      "PAY_MCP_EVM_ASSETS",
    ]);
  });

  const hostile: [string, string | undefined][] = [
    ...["PAY_MCP_EVM_KEYSTORE_PATH", "PAY_MCP_EVM_PASSWORD_PATH"].flatMap(
      (name): [string, string | undefined][] => [
        [name, undefined],
        [name, ""],
        [name, "   "],
        [name, "payer.json"],
        [name, "./payer.json"],
        [name, "~/payer.json"],
        [name, "$HOME/payer.json"],
        [name, "/tmp/a\0b"],
      ],
    ),
    ...["PAY_MCP_EVM_NETWORKS", "PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND"].flatMap((name): [string, string][] => [
      [name, "eip155:8453,"],
      [name, ",eip155:8453"],
      [name, "eip155:8453,,eip155:1"],
      [name, "eip155:8453;eip155:1"],
      [name, "eip155:8453 eip155:1"],
      [name, "eip155:0"],
      [name, "eip155:01"],
      [name, "eip155:-1"],
      [name, "eip155:1.5"],
      [name, "eip155:0x2105"],
      [name, "EIP155:1"],
      [name, "eip155"],
      [name, "eip155:"],
      [name, "8453"],
      [name, "base"],
      [name, "base-sepolia"],
      [name, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvd"],
      [name, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpX"],
      [name, "solana:*"],
      [name, "solana:mainnet"],
      [name, "SOLANA:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"],
      [name, "eip155:*"],
      [name, "eip155:１"],
      [name, `eip155:1${"0".repeat(40)}`],
      [name, "yes"],
      [name, "true"],
      [name, "1"],
      [name, '["eip155:1"]'],
    ]),
    ...["PAY_MCP_EVM_PAYEES", "PAY_MCP_EVM_ASSETS"].flatMap((name): [string, string][] => [
      [name, `${PAYEE},`],
      [name, `${PAYEE};${ASSET}`],
      [name, "0x1234"],
      [name, PAYEE.slice(2)],
      [name, `${PAYEE}00`],
      [name, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293Bc"], // mixed case, wrong checksum
      [name, "0xZZ44cddda6a900fa2b585dd299e03d12fa4293bc"],
      [name, "vitalik.eth"],
      [name, "USDC"],
      [name, "eip155:1/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"],
    ]),
    ["PAY_MCP_EVM_PAYEES", undefined],
    ["PAY_MCP_EVM_NETWORKS", undefined],
    ...["yes", "1", "TRUE", "on", "true,false"].flatMap((value): [string, string][] => [
      ["PAY_MCP_EVM_ALLOW_PERMIT2", value],
      ["PAY_MCP_EVM_ALLOW_INSECURE_HTTP", value],
    ]),
    ...["0", "86401", "1.5", "-1", "5m", "1e3", "9".repeat(20)].map((value): [string, string] => [
      "PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS",
      value,
    ]),
    ...["0", "67108865", "256KiB", "0x100", "1e6"].map((value): [string, string] => [
      "PAY_MCP_EVM_MAX_BODY_BYTES",
      value,
    ]),
    ...["PAY_MCP_EVM_MAX_PER_PAYMENT", "PAY_MCP_EVM_MAX_PER_SESSION"].flatMap(
      (name): [string, string | undefined][] => [
        [name, undefined],
        [name, "0"],
        [name, "000"],
        [name, "-1"],
        [name, "+5"],
        [name, "1e6"],
        [name, "1.5"],
        [name, "1,000,000"],
        [name, "1_000_000"],
        [name, "0x10"],
        [name, "$1"],
        [name, "1 USDC"],
        [name, "Infinity"],
        [name, "NaN"],
        [name, "１２"],
        [name, "9".repeat(79)],
      ],
    ),
  ];

  it.each(hostile)("rejects %s=%j with invalid_setting naming it", (name, value) => {
    const errors = errorsFor(name, value);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "invalid_setting", setting: name });
    expect(errors[0]!.message).toContain(name);
  });

  it("accepts the smallest and largest amounts", () => {
    expect(errorsFor("PAY_MCP_EVM_MAX_PER_PAYMENT", "1")).toEqual([]);
    expect(errorsFor("PAY_MCP_EVM_MAX_PER_PAYMENT", "9".repeat(78))).toEqual([]);
  });

  it("round-trips any list of networks, payees and amounts, whatever the spacing", () => {
    const chainId = fc.bigInt({ min: 1n, max: 10n ** 30n }).map((id) => `eip155:${id}`);
    const address = fc
      .uint8Array({ minLength: 20, maxLength: 20 })
      .map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`));
    const casing = fc.constantFrom<(value: string) => string>(
      (value) => value,
      (value) => value.toLowerCase(),
      (value) => `0x${value.slice(2).toUpperCase()}`,
    );
    const space = fc.stringMatching(/^[ \t]{0,3}$/);
    const join = (entries: string[], spaces: string[]) =>
      entries
        .map(
          (entry, i) => `${spaces[i % spaces.length] ?? ""}${entry}${spaces[(i + 1) % spaces.length] ?? ""}`,
        )
        .join(",");
    fc.assert(
      fc.property(
        fc.array(chainId, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(address, casing), { minLength: 1, maxLength: 5 }),
        fc.bigInt({ min: 1n, max: 2n ** 256n - 1n }),
        fc.array(space, { minLength: 1, maxLength: 4 }),
        (networks, payees, cap, spaces) => {
          const result = parsePayerSettings({
            ...VALID,
            PAY_MCP_EVM_NETWORKS: join(networks, spaces),
            PAY_MCP_EVM_PAYEES: join(
              payees.map(([payee, write]) => write(payee)),
              spaces,
            ),
            PAY_MCP_EVM_MAX_PER_SESSION: `${spaces[0]}${cap}`,
          });
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(result.settings.networks).toEqual([...new Set(networks)]);
          expect(result.settings.payees).toEqual([...new Set(payees.map(([payee]) => payee))]);
          expect(result.settings.maxPerSession).toBe(cap);
        },
      ),
    );
  });

  it("never throws, and names only its own variables, whatever the environment holds", () => {
    const names = Object.values(PAYER_ENV);
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names), fc.oneof(fc.string(), fc.string({ unit: "binary" }))),
        (env) => {
          const result = parsePayerSettings(env);
          if (!result.ok) for (const error of result.errors) expect(names).toContain(error.setting);
        },
      ),
    );
  });
});

describe("parsePayerSettings: the Solana wallet", () => {
  const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const SOL_PAYEE = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const SOLANA_ONLY: Record<string, string> = {
    PAY_MCP_SVM_KEYPAIR_PATH: "/home/agent/.x402/solana.json",
    PAY_MCP_SVM_RPC_URL: "http://127.0.0.1:8899",
    PAY_MCP_EVM_NETWORKS: DEVNET,
    PAY_MCP_EVM_PAYEES: SOL_PAYEE,
    PAY_MCP_EVM_MAX_PER_PAYMENT: "10000",
    PAY_MCP_EVM_MAX_PER_SESSION: "50000",
  };
  const errors = (env: Record<string, string | undefined>) => {
    const result = parsePayerSettings(env);
    return result.ok ? [] : result.errors.map((error) => error.toJSON());
  };

  it("pays from a keypair file alone (no keystore), base58 payees kept as written", () => {
    const result = parsePayerSettings(SOLANA_ONLY);
    expect(result.ok && result.settings).toMatchObject({
      keystorePath: undefined,
      passwordPath: undefined,
      svmKeypairPath: "/home/agent/.x402/solana.json",
      svmRpcUrl: "http://127.0.0.1:8899/",
      networks: [DEVNET],
      payees: [SOL_PAYEE],
    });
  });

  it("takes both wallets, EVM and Solana networks and payees in one list", () => {
    const result = parsePayerSettings({
      ...VALID,
      ...SOLANA_ONLY,
      PAY_MCP_EVM_NETWORKS: `eip155:84532, ${DEVNET}`,
      PAY_MCP_EVM_PAYEES: `${PAYEE.toLowerCase()},${SOL_PAYEE}`,
    });
    expect(result.ok && result.settings.payees).toEqual([PAYEE, SOL_PAYEE]);
  });

  it.each<[string, Record<string, string | undefined>, string]>([
    [
      "no wallet at all",
      { ...SOLANA_ONLY, PAY_MCP_SVM_KEYPAIR_PATH: undefined },
      "PAY_MCP_EVM_KEYSTORE_PATH",
    ],
    [
      "a Solana network without the keypair file",
      { ...VALID, PAY_MCP_EVM_NETWORKS: `eip155:84532,${DEVNET}` },
      "PAY_MCP_SVM_KEYPAIR_PATH",
    ],
    [
      "an EVM network without the keystore",
      { ...SOLANA_ONLY, PAY_MCP_EVM_NETWORKS: `eip155:84532,${DEVNET}` },
      "PAY_MCP_EVM_KEYSTORE_PATH",
    ],
    [
      "a password file without its keystore",
      { ...SOLANA_ONLY, PAY_MCP_EVM_PASSWORD_PATH: "/p" },
      "PAY_MCP_EVM_KEYSTORE_PATH",
    ],
    ...["solana.json", "./solana.json", "~/solana.json", "/tmp/a\0b"].map(
      (value): [string, Record<string, string>, string] => [
        `keypair path ${JSON.stringify(value)}`,
        { ...SOLANA_ONLY, PAY_MCP_SVM_KEYPAIR_PATH: value },
        "PAY_MCP_SVM_KEYPAIR_PATH",
      ],
    ),
    ...["127.0.0.1:8899", "ws://127.0.0.1:8900", "file:///etc/passwd", "javascript:alert(1)", "http//x"].map(
      (value): [string, Record<string, string>, string] => [
        `RPC URL ${JSON.stringify(value)}`,
        { ...SOLANA_ONLY, PAY_MCP_SVM_RPC_URL: value },
        "PAY_MCP_SVM_RPC_URL",
      ],
    ),
    ...[
      "1111111111111111111111111111111", // 31 zero bytes
      "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM1",
      "0WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", // 0 is not base58
      "9wzdxwbbmkg8ztbnmquxvqrayrzzdsgydlvl9zytawwm",
    ].map((value): [string, Record<string, string>, string] => [
      `payee ${JSON.stringify(value)}`,
      { ...SOLANA_ONLY, PAY_MCP_EVM_PAYEES: value },
      "PAY_MCP_EVM_PAYEES",
    ]),
  ])("refuses %s, naming the setting", (_name, env, setting) => {
    const found = errors(env);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ code: "invalid_setting", setting });
    expect(found[0]!.message).toContain(setting);
  });

  it("counts Solana devnet as a test network (plain HTTP allowed), Solana mainnet as real money", () => {
    expect(errors({ ...SOLANA_ONLY, PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true" })).toEqual([]);
    const mainnet = errors({
      ...SOLANA_ONLY,
      PAY_MCP_EVM_NETWORKS: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
      PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true",
    });
    expect(mainnet.map((error) => error.setting)).toEqual(["PAY_MCP_EVM_ALLOW_INSECURE_HTTP"]);
  });
});
