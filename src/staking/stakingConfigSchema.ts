import { z } from "zod/v4";
import { tlsSettingsSchema } from "../config/tlsSettingsSchema.js";
import { FELT_PATTERN, FELT_PRIME } from "./felt.js";
import { DEFAULT_TOKENS } from "./tokens.js";

const felt = z
  .string()
  .regex(FELT_PATTERN, "must be 0x followed by 1 to 64 hex digits")
  .refine((v) => BigInt(v) < FELT_PRIME, "must be below the Starknet field prime");
const unsignedInteger = z.string().regex(/^[0-9]{1,78}$/, "must be a non-negative decimal integer string");
const decimalNumber = z
  .string()
  .regex(/^[0-9]{1,30}(\.[0-9]{1,30})?$/, "must be a non-negative decimal string");
const STRK = 10n ** 18n;

const tokenSchema = z.strictObject({
  symbol: z.string().min(1).max(16),
  address: felt,
  decimals: z.number().int().min(0).max(18),
});

const localSchema = z.strictObject({
  /** SQLite file of the simulated chain (WAL mode). `:memory:` keeps nothing. */
  dataFile: z.string().min(1).default("data/staking.sqlite"),
  /** The simulated validator's staker address. */
  stakerAddress: felt.default("0x0511a6c6a3b9c5c0c6e2f1b0d2e4a5c7f8e9d0a1b2c3d4e5f60718293a4b5c6d"),
  /** Pool contract address per token symbol; a token without one gets a derived address. */
  poolAddresses: z.record(z.string(), felt).default({}),
  /** The validator's commission on its pools' rewards, in basis points (500 = 5 %). */
  commissionBps: z.number().int().min(0).max(10_000).default(500),
  /** The validator's own STRK stake, in fri (reported in validator metrics). */
  ownStake: unsignedInteger.default((1_000_000n * STRK).toString()),
  /** A validator that is leaving accepts no new delegation (`VALIDATOR_EXITING`). */
  exiting: z.boolean().default(false),
  /** Length of an epoch in seconds; rewards are paid per finished epoch. */
  epochLengthSeconds: z.number().int().min(1).max(86_400).default(60),
  /** Time between an exit intent and the earliest exit action, in seconds (7 days on mainnet). */
  exitWaitWindowSeconds: z
    .number()
    .int()
    .min(0)
    .max(365 * 86_400)
    .default(300),
  /** STRK minted per year for all stakers, in fri. */
  yearlyMint: unsignedInteger.default((120_000_000n * STRK).toString()),
  /** Total stake of the whole (simulated) network, 18-decimal normalised, that shares the mint. */
  networkStake: z
    .strictObject({
      strk: unsignedInteger.default((1_000_000_000n * STRK).toString()),
      btc: unsignedInteger.default((1_500n * STRK).toString()),
    })
    .prefault({}),
  /** Demo wallets: a user seen for the first time gets these amounts (smallest units, per symbol). */
  faucet: z
    .strictObject({
      enabled: z.boolean().default(true),
      amounts: z.record(z.string(), unsignedInteger).default({
        STRK: (10_000n * STRK).toString(),
        WBTC: (1n * 10n ** 8n).toString(),
      }),
    })
    .prefault({}),
});

const starknetSchema = z.strictObject({
  /** Base URL of the Starknet node; the backend calls `{rpcUrl}/rpc/v0_10`. */
  rpcUrl: z.url(),
  /** The staking contract. */
  stakingContract: felt,
  /** The minting curve contract (`yearly_mint`). */
  mintingCurveContract: felt,
  /** The validator (staker address) whose pools this backend serves. */
  stakerAddress: felt,
  /** Timeout of one RPC call, in milliseconds. */
  timeoutMs: z.number().int().min(1).max(120_000).default(10_000),
});

export const stakingConfigSchema = z.strictObject({
  /** Which chain adapter serves the operations. */
  adapter: z.enum(["local", "starknet"]).default("local"),
  name: z.string().default("starknet-staking-backend"),
  description: z
    .string()
    .default("Native staking (delegation) on Starknet for one validator: pools, rewards, exits and APR."),
  /**
   * Absolute URL where clients reach this backend (behind a gateway: the gateway's); the descriptor's
   * documentation link uses it, and no request header can change it.
   */
  publicUrl: z.url().optional(),
  /**
   * Proxies (IPs, CIDRs, or `loopback`, as Express's `trust proxy`) whose `X-Forwarded-Host` and
   * `X-Forwarded-Proto` name the URL clients used, when `publicUrl` is not set. Default none: the
   * request's own `Host`.
   */
  trustProxy: z.array(z.string().min(1)).default([]),
  /** Where the CLI listens. */
  server: z
    .strictObject({
      host: z.string().default("127.0.0.1"),
      port: z.number().int().min(0).max(65_535).default(3001),
      /** With it the backend speaks HTTPS (the same settings as the gateway's `listen.tls`). */
      tls: tlsSettingsSchema.optional(),
    })
    .prefault({}),
  /** Tokens the validator may have pools for. Symbols other than STRK count as BTC wrappers. */
  tokens: z
    .array(tokenSchema)
    .min(1)
    .default(DEFAULT_TOKENS.map((t) => ({ ...t }))),
  /** USD prices used only for the BTC APR (decimal strings). */
  prices: z
    .strictObject({ strkUsd: decimalNumber.default("0.15"), btcUsd: decimalNumber.default("100000") })
    .prefault({}),
  /** Share of the yearly mint that goes to BTC stakers, in basis points (alpha = 25 %). */
  btcShareBps: z.number().int().min(0).max(10_000).default(2_500),
  /** Largest accepted JSON body, in bytes. */
  maxBodyBytes: z
    .number()
    .int()
    .min(1)
    .max(1024 * 1024)
    .default(64 * 1024),
  local: localSchema.prefault({}),
  starknet: starknetSchema.optional(),
});

/** The config as written in a file (every key optional). */
export type StakingConfigInput = z.input<typeof stakingConfigSchema>;
/** The config with defaults applied. */
export type StakingConfig = z.output<typeof stakingConfigSchema>;
