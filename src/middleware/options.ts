import { z } from "zod/v4";
import { caip2Network, decimalIntegerString } from "../protocol/schemas.js";
import { isFacilitator, type Facilitator } from "../facilitator/Facilitator.js";
import { isCborFacilitator, type CborFacilitator } from "../facilitator/CborFacilitator.js";
import { isPaymentLedger, type PaymentLedger } from "../ledger/PaymentLedger.js";
import { isFacilitatorClient, type FacilitatorClient } from "../facilitator/fromFacilitatorClient.js";
import type { SignInGate } from "../recognition/SignInGate.js";
import type { Request } from "express";
import type { PaywallObserver } from "./PaywallObserver.js";
import type { Logger } from "../common/Logger.js";
import type { SettlementChecker } from "../facilitator/SettlementChecker.js";
import { cborRouteSchema, cborSettingsSchema } from "./cborOptions.js";

/** Defaults, written once. */
export const DEFAULTS = {
  verifyTimeoutMs: 10_000,
  settleTimeoutMs: 30_000,
  supportedTimeoutMs: 5_000,
  maxTimeoutSeconds: 300,
  maxHeldResponseBytes: 8 * 1024 * 1024,
  reservationTtlMs: 5 * 60_000,
  /** How long a timed-out or cut settlement is checked on chain before answering `settlement_unknown`. */
  settlementCheckTimeoutMs: 30_000,
  settlementCheckIntervalMs: 1_000,
  /** How long a spent payment is remembered when its authorization has no `validBefore`. */
  spentTtlMs: 24 * 60 * 60_000,
} as const;

/** `"$0.01"` or `"0.01"`: an amount of the network's default asset (USDC), converted with integer arithmetic. */
export const moneyString = z
  .string()
  .regex(/^\$?(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'expected a money string such as "$0.01" or "0.01"');

/** An amount in the asset's smallest unit, with the asset's address and EIP-712 domain. */
export const atomicPriceSchema = z.strictObject({
  amount: decimalIntegerString,
  asset: z.string().min(1, "expected the asset's address"),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const priceSchema = z.union([moneyString, atomicPriceSchema], {
  error: 'expected a money string ("$0.01") or { amount, asset, extra }',
});
export type Price = z.infer<typeof priceSchema>;

export const paymentSchemeSchema = z.enum(["exact", "exact-pq"]);

/** One accepted way to pay for a route; unset fields come from the route, then from the top level. */
export const paymentOptionSchema = z.strictObject({
  price: priceSchema,
  scheme: paymentSchemeSchema.optional(),
  network: caip2Network.optional(),
  payTo: z.string().min(1).optional(),
  maxTimeoutSeconds: z.number().int().positive().optional(),
});
export type PaymentOption = z.infer<typeof paymentOptionSchema>;

/** Where to ask whether a payer is recognized (`est_ouverte(payer)` on Starknet, WIRE.md §3). */
export const recognitionSettingsSchema = z.strictObject({
  /** JSON-RPC base URL; calls go to `{rpcUrl}/rpc/v0_10`. */
  rpcUrl: z.url(),
  /**
   * Node URL the offer's `starknet-recognition` extension names for clients to check themselves,
   * when `rpcUrl` must stay private (it carries a key, or is on a private network). Default: `rpcUrl`.
   */
  announceRpcUrl: z.url().optional(),
  /** Address of the contract exposing `est_ouverte`. */
  contract: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a felt (0x + 1–64 hex digits)"),
  timeoutMs: z.number().int().positive().optional(),
  positiveTtlMs: z.number().int().nonnegative().optional(),
  negativeTtlMs: z.number().int().nonnegative().optional(),
  staleIfErrorMs: z.number().int().nonnegative().optional(),
  maxEntries: z.number().int().positive().optional(),
  /** How long a sign-in nonce stays valid, in seconds. */
  signInTtlSeconds: z.number().int().positive().optional(),
});
export type RecognitionSettings = z.infer<typeof recognitionSettingsSchema>;

export const routeSchema = z
  .strictObject({
    /** Price of the route's first payment option. */
    price: priceSchema.optional(),
    scheme: paymentSchemeSchema.optional(),
    network: caip2Network.optional(),
    payTo: z.string().min(1).optional(),
    maxTimeoutSeconds: z.number().int().positive().optional(),
    /** Further (or, without `price`, all) accepted payment options. */
    accepts: z.array(paymentOptionSchema).optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    /** `after` (default): settle only once the handler answered 2xx. `before`: settle, then run the handler. */
    settle: z.enum(["after", "before"]).optional(),
    /** Let recognized payers in without paying; `false` turns a global default off for this route. */
    recognition: z.union([z.literal(false), recognitionSettingsSchema]).optional(),
    /** Offer the route in `application/x402+cbor` too (or only, without `price`/`accepts`). */
    cbor: cborRouteSchema.optional(),
  })
  .refine(
    (route) => route.price !== undefined || (route.accepts?.length ?? 0) > 0 || route.cbor !== undefined,
    { error: "a priced route needs `price`, a non-empty `accepts`, or `cbor`" },
  );
export type RouteConfig = z.infer<typeof routeSchema>;

/** An asset the money-string parser may use, beyond the built-in table (e.g. a test token). */
export const assetSchema = z.strictObject({
  network: caip2Network,
  address: z.string().min(1),
  decimals: z.number().int().min(0).max(36),
  /** EIP-712 domain name and version (the requirement's `extra`). */
  name: z.string().optional(),
  version: z.string().optional(),
  symbol: z.string().optional(),
});
export type AssetConfig = z.infer<typeof assetSchema>;

const headersFunction = z.custom<FacilitatorHeaders>((value) => typeof value === "function", {
  error: "expected a function returning headers",
});
export type FacilitatorHeaders = (
  endpoint: "verify" | "settle" | "supported",
) => Record<string, string> | Promise<Record<string, string>>;

export const facilitatorSettingsSchema = z.strictObject({
  url: z.url({ error: "expected the facilitator's base URL" }),
  /** Timeout of `/verify`, in ms. */
  timeoutMs: z.number().int().positive().default(DEFAULTS.verifyTimeoutMs),
  /** Timeout of `/settle`, in ms. */
  settleTimeoutMs: z.number().int().positive().default(DEFAULTS.settleTimeoutMs),
  /** Timeout of `/supported`, in ms. */
  supportedTimeoutMs: z.number().int().positive().default(DEFAULTS.supportedTimeoutMs),
  /** Extra headers (e.g. auth) on every call: a fixed map, or a function of the endpoint. */
  headers: z.union([z.record(z.string(), z.string()), headersFunction]).optional(),
});
export type FacilitatorSettings = z.infer<typeof facilitatorSettingsSchema>;

export const memoryLedgerSettingsSchema = z.strictObject({ type: z.literal("memory") });

/** A ledger in Redis, shared by every gateway instance that uses the same `url` and `keyPrefix`. */
export const redisLedgerSettingsSchema = z.strictObject({
  type: z.literal("redis"),
  url: z.string().regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL"),
  keyPrefix: z.string().optional(),
  /** Timeout of each Redis command, in ms. */
  commandTimeoutMs: z.number().int().positive().optional(),
});

export const ledgerSettingsSchema = z.discriminatedUnion("type", [
  memoryLedgerSettingsSchema,
  redisLedgerSettingsSchema,
]);
export type LedgerSettings = z.infer<typeof ledgerSettingsSchema>;

/** The serialisable part of the options: what a config file can say too. */
export const paywallSettingsSchema = z.strictObject({
  facilitator: facilitatorSettingsSchema,
  /** Default recipient of every route. */
  payTo: z.string().min(1),
  /** Default CAIP-2 network of every route. */
  network: caip2Network,
  /** Base URL the offers name as `resource.url`; without it the request's own host is used. */
  publicUrl: z.url().optional(),
  routes: z.record(z.string(), routeSchema),
  assets: z.array(assetSchema).optional(),
  maxTimeoutSeconds: z.number().int().positive().default(DEFAULTS.maxTimeoutSeconds),
  /** Cap on a response held until settlement, in bytes; larger → 502 response_too_large, never settled. */
  maxHeldResponseBytes: z.number().int().positive().default(DEFAULTS.maxHeldResponseBytes),
  /** How long a payment stays reserved while it is verified, served and settled, in ms. */
  reservationTtlMs: z.number().int().positive().default(DEFAULTS.reservationTtlMs),
  /**
   * JSON-RPC URL per CAIP-2 network (`"eip155:8453": "https://…"`). With it, a `/settle` that timed out
   * or was cut is resolved on chain (EIP-3009 `authorizationState` and its events); without it such a
   * payment is answered `503 settlement_unknown` and kept for a retry with the same payment.
   */
  rpcUrls: z.record(caip2Network, z.url()).default({}),
  /** How long to keep asking the chain about an unknown settlement before answering `settlement_unknown`, in ms. */
  settlementCheckTimeoutMs: z.number().int().nonnegative().default(DEFAULTS.settlementCheckTimeoutMs),
  /** Default recognition for every route (a route may set its own, or `false`). */
  recognition: recognitionSettingsSchema.optional(),
  /**
   * Refuse (`400 invalid_path`) a path that a lenient server (one that strips `;params`, decodes twice,
   * cuts at NUL, drops trailing dots, applies NFKC…) could read as a different priced route. Turn it
   * off only when every server behind the paywall reads paths exactly as the paywall does.
   */
  refuseLenientReadings: z.boolean().default(true),
  /** Require HTTPS for priced routes (403 tls_required otherwise). */
  requireTls: z.boolean().default(false),
  /** Shared settings of the routes that offer `application/x402+cbor`. */
  cbor: cborSettingsSchema.optional(),
});
export type PaywallSettings = z.infer<typeof paywallSettingsSchema>;

export type PaidEvent = {
  payer: string;
  amount: string;
  asset: string;
  network: string;
  route: string;
  transaction: string;
};
export type ErrorEvent = { error: unknown; code: string; route: string | undefined };

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", { error: `expected ${what} (a function)` });

/** Everything `x402()` accepts: the settings plus the objects only code can pass. */
export const x402OptionsSchema = paywallSettingsSchema.extend({
  facilitator: z.union(
    [
      facilitatorSettingsSchema,
      z.custom<Facilitator>(isFacilitator),
      z.custom<FacilitatorClient>(isFacilitatorClient),
    ],
    {
      error:
        "expected { url, timeoutMs? }, an object with verify/settle/supported, or an official FacilitatorClient (verify/settle/getSupported)",
    },
  ),
  ledger: z.union([ledgerSettingsSchema, z.custom<PaymentLedger>(isPaymentLedger)]).optional(),
  logger: z
    .custom<Logger>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        ["info", "warn", "error", "debug"].every(
          (level) => typeof (value as Record<string, unknown>)[level] === "function",
        ),
      { error: "expected a pino-compatible logger (info/warn/error/debug)" },
    )
    .optional(),
  onPaid: fn<(event: PaidEvent) => void>("onPaid").optional(),
  onError: fn<(event: ErrorEvent) => void>("onError").optional(),
  observer: z.custom<PaywallObserver>((value) => typeof value === "object" && value !== null).optional(),
  /** What resolves unknown settlements, instead of the one built from `rpcUrls`. */
  settlementChecker: z
    .custom<SettlementChecker>((value) => typeof value === "object" && value !== null)
    .optional(),
  /** A sign-in gate to use instead of the one built from `recognition` settings. */
  signInGate: z.custom<SignInGate>((value) => typeof value === "object" && value !== null).optional(),
  requireTls: z.union([z.boolean(), fn<(req: Request) => boolean>("requireTls")]).default(false),
  /** Clock, in epoch ms (tests move it). */
  now: fn<() => number>("now").optional(),
  /** `fetch` used for outbound calls. */
  fetch: fn<typeof fetch>("fetch").optional(),
  /** A CBOR facilitator to use instead of `cbor.facilitator` / `facilitator` for CBOR payments. */
  cborFacilitator: z
    .custom<CborFacilitator>(isCborFacilitator, { error: "expected verifyCbor/settleCbor" })
    .optional(),
});
export type X402Options = z.input<typeof x402OptionsSchema>;
export type ResolvedX402Options = z.output<typeof x402OptionsSchema>;
