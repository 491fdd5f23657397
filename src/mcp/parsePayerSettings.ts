import { isAbsolute } from "node:path";
import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod/v4";
import { PAYER_ENV, UnpayableError, type PayerSetting } from "./errors.js";
import { isTestNetwork } from "../protocol/isTestNetwork.js";
import { isSolanaAddress } from "../protocol/isSolanaAddress.js";
import { DEFAULT_BODY_LIMIT_BYTES } from "./readResource.js";

/** The payer's settings, read once from the environment when the server starts. */
export interface PayerSettings {
  /** Absolute path of the Web3 Secret Storage v3 keystore file (the EVM wallet), with its password's. */
  keystorePath: string | undefined;
  /** Absolute path of the file holding the keystore's password. */
  passwordPath: string | undefined;
  /** Absolute path of the Solana keypair file (the Solana wallet). */
  svmKeypairPath: string | undefined;
  /** The Solana JSON-RPC endpoint the official client reads the chain from; undefined = its default. */
  svmRpcUrl: string | undefined;
  /** Networks the payer may pay on (CAIP-2, `eip155:<chain id>` or `solana:<genesis hash prefix>`). */
  networks: string[];
  /** Payees (`payTo`) the payer may pay: EVM addresses checksummed, Solana ones base58 as written. */
  payees: string[];
  /** Tokens the payer may pay with (EVM contracts checksummed, SPL mints); undefined = any (except on eip155:1). */
  assets: string[] | undefined;
  /** Cap on one payment, in the asset's smallest unit. */
  maxPerPayment: bigint;
  /** Cap on the sum of the payments of this server process, in the assets' smallest units. */
  maxPerSession: bigint;
  /** Mainnets the user consented to spend real money on (CAIP-2). */
  mainnetConsent: string[];
  /** Whether offers asking for a Permit2 transfer may be signed (only with `assets` set). */
  allowPermit2: boolean;
  /** Longest lifetime of a signed authorization, in seconds; offers asking more are refused. */
  maxAuthorizationSeconds: number;
  /** Cap on the resource body returned to the agent, in bytes. */
  maxBodyBytes: number;
  /**
   * Whether a payment may go over plain HTTP to a host that is not loopback; only with test networks
   * in `networks` (a mainnet refuses the setting).
   */
  allowInsecureHttp: boolean;
}

/** Defaults of the optional limits (docs/mcp-payer.md lists them). */
export const PAYER_DEFAULTS = {
  allowPermit2: false,
  maxAuthorizationSeconds: 300,
  maxBodyBytes: DEFAULT_BODY_LIMIT_BYTES,
  allowInsecureHttp: false,
} as const;

export type ParsedPayerSettings =
  { ok: true; settings: PayerSettings } | { ok: false; errors: UnpayableError[] };

const MAX_DIGITS = 78; // a uint256 has at most 78 decimal digits
const CAIP2_EVM = /^eip155:[1-9][0-9]{0,31}$/;
const CAIP2_SOLANA = /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/;
const DECIMAL = /^[0-9]+$/;

/** Shows a user's value in a message: quoted, escaped, shortened. */
const show = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** A string schema from a check that either returns the parsed value or says what is wrong. */
function checked<T>(check: (value: string) => { value: T } | { problem: string }) {
  return z.string().transform((value, ctx) => {
    const result = check(value);
    if ("value" in result) return result.value;
    ctx.issues.push({ code: "custom", message: result.problem, input: value });
    return z.NEVER;
  });
}

const absolutePath = checked((value) => {
  if (value.includes("\0")) return { problem: "must not contain a NUL character" };
  if (!isAbsolute(value)) return { problem: "must be an absolute path (~ and $HOME are not expanded)" };
  return { value };
});

const positiveAmount = checked((value) => {
  if (!DECIMAL.test(value))
    return { problem: "must be a whole number of the asset's smallest unit, digits only" };
  if (value.length > MAX_DIGITS) return { problem: `must have at most ${MAX_DIGITS} digits` };
  const amount = BigInt(value);
  return amount > 0n ? { value: amount } : { problem: "must be greater than 0" };
});

/** A whole number in [min, max] (limits in seconds or bytes, where a JS number is exact). */
const boundedInteger = (min: number, max: number) =>
  checked((value) =>
    /^[0-9]{1,16}$/.test(value) && Number(value) >= min && Number(value) <= max
      ? { value: Number(value) }
      : { problem: `must be a whole number from ${min} to ${max}, digits only` },
  );

const flag = checked((value) =>
  value === "true" || value === "false" ? { value: value === "true" } : { problem: "must be true or false" },
);

const network = checked((value) =>
  CAIP2_EVM.test(value) || CAIP2_SOLANA.test(value)
    ? { value }
    : {
        problem: `${show(value)} is not a network id (eip155:<chain id>, e.g. eip155:84532, or solana:<genesis hash prefix>)`,
      },
);

/**
 * EIP-55: all-lowercase or all-uppercase hex carries no checksum; mixed case must be a valid one. A Solana
 * address is base58 of 32 bytes, kept as written (base58 is case-sensitive).
 */
const address = checked((value): { value: string } | { problem: string } => {
  if (/^0x([0-9a-f]{40}|[0-9A-F]{40})$/.test(value) || isAddress(value, { strict: true }))
    return { value: getAddress(value) as Address };
  if (isSolanaAddress(value)) return { value };
  return {
    problem: `${show(value)} is not an address (0x + 40 hex digits, mixed case a valid checksum; or a base58 Solana address)`,
  };
});

const rpcUrl = checked((value) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `${show(value)} is not a URL` };
  }
  return url.protocol === "https:" || url.protocol === "http:"
    ? { value: url.href }
    : { problem: `${show(value)} is not an http:// or https:// URL` };
});

/** A comma-separated list: entries trimmed, none empty, duplicates dropped. */
function list<T>(item: z.ZodType<T, string>) {
  return checked((value) => {
    const entries = value.split(",").map((entry) => entry.trim());
    if (entries.some((entry) => entry === "")) return { problem: "has an empty entry (a stray comma?)" };
    const parsed: T[] = [];
    for (const entry of entries) {
      const result = item.safeParse(entry);
      if (!result.success) return { problem: result.error.issues[0]?.message ?? `${show(entry)} is invalid` };
      parsed.push(result.data);
    }
    return { value: [...new Set(parsed)] };
  });
}

const SCHEMAS = {
  keystorePath: absolutePath,
  passwordPath: absolutePath,
  svmKeypairPath: absolutePath,
  svmRpcUrl: rpcUrl,
  networks: list(network),
  payees: list(address),
  maxPerPayment: positiveAmount,
  maxPerSession: positiveAmount,
  mainnetConsent: list(network),
  assets: list(address),
  allowPermit2: flag,
  maxAuthorizationSeconds: boundedInteger(1, 86_400),
  maxBodyBytes: boundedInteger(1, 64 * 1024 * 1024),
  allowInsecureHttp: flag,
} as const;

type OptionalKey =
  | "assets"
  | "mainnetConsent"
  | "keystorePath"
  | "passwordPath"
  | "svmKeypairPath"
  | "svmRpcUrl"
  | keyof typeof PAYER_DEFAULTS;

/** What an unset optional variable means (the wallets are checked together below). */
const UNSET: Record<OptionalKey, unknown> = {
  assets: undefined,
  mainnetConsent: [],
  keystorePath: undefined,
  passwordPath: undefined,
  svmKeypairPath: undefined,
  svmRpcUrl: undefined,
  ...PAYER_DEFAULTS,
};

const REQUIRED_HINT: Record<Exclude<keyof typeof SCHEMAS, OptionalKey>, string> = {
  networks: "a comma-separated list of networks, e.g. eip155:84532",
  payees: "a comma-separated list of payee addresses",
  maxPerPayment: "the cap on one payment in the asset's smallest unit, e.g. 1000000",
  maxPerSession: "the cap on all payments of this server process, e.g. 5000000",
};

/**
 * Reads the payer's settings from `env`. Values are trimmed; an empty value counts as unset.
 * Every invalid or missing variable gives one `invalid_setting` error naming it.
 */
export function parsePayerSettings(env: Record<string, string | undefined>): ParsedPayerSettings {
  const errors: UnpayableError[] = [];
  const values: Partial<Record<keyof typeof SCHEMAS, unknown>> = {};
  for (const key of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
    const name: PayerSetting = PAYER_ENV[key];
    const raw = env[name]?.trim() ?? "";
    if (raw === "") {
      if (key in UNSET) values[key] = UNSET[key as OptionalKey];
      else
        errors.push(
          new UnpayableError(
            "invalid_setting",
            `${name} is not set: set it to ${REQUIRED_HINT[key as keyof typeof REQUIRED_HINT]}`,
            {
              setting: name,
            },
          ),
        );
      continue;
    }
    const result = SCHEMAS[key].safeParse(raw);
    if (result.success) values[key] = result.data;
    else {
      const reason = result.error.issues[0]?.message ?? "is invalid";
      const message = reason.startsWith('"') ? `${name}: ${reason}` : `${name} ${reason}`;
      errors.push(new UnpayableError("invalid_setting", message, { setting: name }));
    }
  }
  // The wallets are the table's first variables: their problems come first.
  errors.unshift(...walletProblems(env, values.networks as string[] | undefined));
  // Permit2 can move any token approved to it: the raw-unit caps only mean something per named token.
  if (values.allowPermit2 === true && (env[PAYER_ENV.assets]?.trim() ?? "") === "")
    errors.push(
      new UnpayableError(
        "invalid_setting",
        `${PAYER_ENV.allowPermit2}=true needs ${PAYER_ENV.assets} naming the tokens Permit2 may move`,
        { setting: PAYER_ENV.allowPermit2 },
      ),
    );
  // Plain HTTP is for test networks: a payer that may pay on a mainnet keeps TLS mandatory.
  const mainnets = ((values.networks as string[] | undefined) ?? []).filter((id) => !isTestNetwork(id));
  if (values.allowInsecureHttp === true && mainnets.length > 0)
    errors.push(
      new UnpayableError(
        "invalid_setting",
        `${PAYER_ENV.allowInsecureHttp}=true is for test networks only, and ${PAYER_ENV.networks} names ${mainnets.join(", ")}`,
        { setting: PAYER_ENV.allowInsecureHttp },
      ),
    );
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, settings: values as unknown as PayerSettings };
}

/**
 * The wallets: at least one, an EVM keystore with its password file, and a wallet for each family of
 * networks in `PAY_MCP_EVM_NETWORKS` (a Solana network needs the keypair file, an EVM one the keystore).
 */
function walletProblems(
  env: Record<string, string | undefined>,
  networks: string[] | undefined,
): UnpayableError[] {
  const isSet = (key: keyof typeof PAYER_ENV) => (env[PAYER_ENV[key]]?.trim() ?? "") !== "";
  const problem = (key: keyof typeof PAYER_ENV, message: string) =>
    new UnpayableError("invalid_setting", message, { setting: PAYER_ENV[key] });
  const evm = isSet("keystorePath") || isSet("passwordPath");
  const svm = isSet("svmKeypairPath");
  if (!evm && !svm)
    return [
      problem(
        "keystorePath",
        `${PAYER_ENV.keystorePath} is not set: set it to the absolute path of your v3 keystore file (with ${PAYER_ENV.passwordPath}), or ${PAYER_ENV.svmKeypairPath} to a Solana keypair file`,
      ),
    ];
  const problems: UnpayableError[] = [];
  if (evm && !isSet("keystorePath"))
    problems.push(
      problem(
        "keystorePath",
        `${PAYER_ENV.keystorePath} is not set: set it to the absolute path of your v3 keystore file`,
      ),
    );
  if (evm && !isSet("passwordPath"))
    problems.push(
      problem(
        "passwordPath",
        `${PAYER_ENV.passwordPath} is not set: set it to the absolute path of the file holding the keystore's password`,
      ),
    );
  const solana = (networks ?? []).filter((id) => id.startsWith("solana:"));
  const eip155 = (networks ?? []).filter((id) => id.startsWith("eip155:"));
  if (solana.length > 0 && !svm)
    problems.push(
      problem(
        "svmKeypairPath",
        `${PAYER_ENV.networks} names ${solana.join(", ")}: set ${PAYER_ENV.svmKeypairPath} to the Solana keypair file to pay there`,
      ),
    );
  if (eip155.length > 0 && !evm)
    problems.push(
      problem(
        "keystorePath",
        `${PAYER_ENV.networks} names ${eip155.join(", ")}: set ${PAYER_ENV.keystorePath} and ${PAYER_ENV.passwordPath} to pay there`,
      ),
    );
  return problems;
}
