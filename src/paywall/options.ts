import { z } from "zod/v4";
import { caip2Network } from "../protocol/schemas.js";
import { isFacilitator, type Facilitator } from "../facilitator/Facilitator.js";
import { isCborFacilitator, type CborFacilitator } from "../facilitator/CborFacilitator.js";
import { isPaymentLedger, type PaymentLedger } from "../ledger/PaymentLedger.js";
import { isFacilitatorClient, type FacilitatorClient } from "../facilitator/fromFacilitatorClient.js";
import type { SignInGate } from "../recognition/SignInGate.js";
import type { PaywallObserver } from "./PaywallObserver.js";
import type { Logger } from "../common/Logger.js";
import type { SettlementChecker } from "../facilitator/SettlementChecker.js";
import { cborSettingsSchema } from "../pricing/cborRouteSettings.js";
import {
  assetSchema,
  codeRouteSchema,
  PRICING_DEFAULTS,
  routeSchema,
  type RouteInput,
} from "../pricing/routeSettings.js";
import { facilitatorSettingsSchema } from "../facilitator/facilitatorSettings.js";
import { outboundUrl } from "../common/outboundUrl.js";
import { paywallSettingsIssues } from "./paywallSettingsIssues.js";
import { ledgerSettingsSchema } from "../ledger/ledgerSettings.js";
import { recognitionSettingsSchema } from "../recognition/recognitionSettings.js";
import { revocationSettingsSchema } from "../recognition/revocationSettings.js";
import type { RevokedPayers } from "../recognition/RevokedPayers.js";
import { paywallPageSettingsSchema, type PaywallProvider } from "./paywallPageSettings.js";

/** Defaults of the paywall's own settings, written once (each part's live beside its schema). */
export const DEFAULTS = {
  maxHeldResponseBytes: 8 * 1024 * 1024,
  reservationTtlMs: 5 * 60_000,
  /** How long a timed-out or cut settlement is checked on chain before answering `settlement_unknown`. */
  settlementCheckTimeoutMs: 30_000,
  settlementCheckIntervalMs: 1_000,
  /** How long a spent payment is remembered when its authorization has no `validBefore`. */
  spentTtlMs: 24 * 60 * 60_000,
} as const;

/**
 * `requireTls`, written once: `true`, `false`, `"except-loopback"`, or (in code) a function of the adapter's
 * own request (Express's `Request` for `x402()`, Node's `IncomingMessage` for `x402Node()`).
 */
export type RequireTls<R> = boolean | "except-loopback" | ((req: R) => boolean);
const requireTlsSetting = z.union([z.boolean(), z.literal("except-loopback")]);

/** The serialisable part of the options: what a config file can say too. */
export const paywallSettingsSchema = z.strictObject({
  /**
   * The x402 facilitator that verifies and settles payments: `{ url, timeoutMs?, settleTimeoutMs?,
   * supportedTimeoutMs?, headers? }`.
   */
  facilitator: facilitatorSettingsSchema.meta({
    description:
      "The x402 facilitator that verifies and settles payments: `{ url, timeoutMs?, settleTimeoutMs?, supportedTimeoutMs?, headers? }`.",
  }),
  /** Default recipient of every route; needed only when some route or option names none. */
  payTo: z.string().min(1).optional().meta({
    description: "Default recipient of every route; needed only when some route or option names none.",
  }),
  /** Default CAIP-2 network of every route; needed only when some route or option names none. */
  network: caip2Network.optional().meta({
    description: "Default CAIP-2 network of every route; needed only when some route or option names none.",
  }),
  /** Base URL the offers name as `resource.url`; without it the request's own host is used. */
  publicUrl: z.url().optional().meta({
    description: "Base URL the offers name as `resource.url`; without it the request's own host is used.",
  }),
  /**
   * Without `publicUrl`: the hosts (`api.example.com`, or `host:port`) a request's `Host` may name; the
   * first is used for any other. Recognition needs `publicUrl` or this.
   */
  allowedHosts: z
    .array(z.string().regex(/^[^\s/]+$/, "expected a host name, optionally with :port"))
    .optional()
    .meta({
      description:
        "Without `publicUrl`: the hosts (`api.example.com`, or `host:port`) a request's `Host` may name; the first is used for any other. Recognition needs `publicUrl` or this.",
    }),
  /**
   * Priced routes: `"METHOD /path/:param/*"` → `{ price | accepts, description?, settle?, recognition?, cbor?
   * }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free.
   */
  routes: z.record(z.string(), routeSchema).meta({
    description:
      'Priced routes: `"METHOD /path/:param/*"` → `{ price | accepts, description?, settle?, recognition?, cbor? }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free.',
  }),
  /** Tokens money strings may be paid in, beyond the built-in USDC table (e.g. a local test token). */
  assets: z.array(assetSchema).optional().meta({
    description:
      "Tokens money strings may be paid in, beyond the built-in USDC table (e.g. a local test token).",
  }),
  /** Default `maxTimeoutSeconds` of every payment option, in seconds. Default 300. */
  maxTimeoutSeconds: z
    .number()
    .int()
    .positive()
    .default(PRICING_DEFAULTS.maxTimeoutSeconds)
    .meta({ description: "Default `maxTimeoutSeconds` of every payment option, in seconds. Default 300." }),
  /** Cap on a response held until settlement, in bytes; larger → 502 response_too_large, never settled. */
  maxHeldResponseBytes: z.number().int().positive().default(DEFAULTS.maxHeldResponseBytes).meta({
    description:
      "Cap on a response held until settlement, in bytes; larger → 502 response_too_large, never settled.",
  }),
  /** How long a payment stays reserved while it is verified, served and settled, in ms. */
  reservationTtlMs: z.number().int().positive().default(DEFAULTS.reservationTtlMs).meta({
    description: "How long a payment stays reserved while it is verified, served and settled, in ms.",
  }),
  /**
   * JSON-RPC URL per CAIP-2 network (`"eip155:8453": "https://…"`). With it, a `/settle` that timed out or
   * was cut is resolved on chain (EIP-3009 `authorizationState` and its events); without it such a payment is
   * answered `503 settlement_unknown` and kept for a retry with the same payment. The `network`'s entry also
   * checks EIP-1271 contract wallets' CBOR intents (EvmSigner).
   */
  rpcUrls: z.record(caip2Network, outboundUrl("a JSON-RPC URL")).default({}).meta({
    description:
      'JSON-RPC URL per CAIP-2 network (`"eip155:8453": "https://…"`). With it, a `/settle` that timed out or was cut is resolved on chain (EIP-3009 `authorizationState` and its events); without it such a payment is answered `503 settlement_unknown` and kept for a retry with the same payment. The `network`\'s entry also checks EIP-1271 contract wallets\' CBOR intents (EvmSigner).',
  }),
  /**
   * How long to keep asking the chain about an unknown settlement before answering `settlement_unknown`, in
   * ms.
   */
  settlementCheckTimeoutMs: z.number().int().nonnegative().default(DEFAULTS.settlementCheckTimeoutMs).meta({
    description:
      "How long to keep asking the chain about an unknown settlement before answering `settlement_unknown`, in ms.",
  }),
  /** Default recognition for every route (a route may set its own, or `false`). */
  recognition: recognitionSettingsSchema
    .optional()
    .meta({ description: "Default recognition for every route (a route may set its own, or `false`)." }),
  /**
   * Refuse (`400 invalid_path`) a path that a lenient server (one that strips `;params`, decodes twice, cuts
   * at NUL, drops trailing dots, applies NFKC…) could read as a different priced route. Turn it off only when
   * every server behind the paywall reads paths exactly as the paywall does.
   */
  refuseLenientReadings: z.boolean().default(true).meta({
    description:
      "Refuse (`400 invalid_path`) a path that a lenient server (one that strips `;params`, decodes twice, cuts at NUL, drops trailing dots, applies NFKC…) could read as a different priced route. Turn it off only when every server behind the paywall reads paths exactly as the paywall does.",
  }),
  /**
   * Match route paths case-sensitively (`/api/metrics/Validator` is then not
   * `/api/metrics/validator`). Default false: literals match in any case, as Express routes do by
   * default. Turn it on only when every server behind the paywall routes case-sensitively
   * (Express's `caseSensitive` routing), or a path in another case could reach a priced resource
   * unpriced.
   */
  caseSensitivePaths: z.boolean().default(false).meta({
    description:
      "Match route paths case-sensitively (`/api/metrics/Validator` is then not `/api/metrics/validator`). Default false: literals match in any case, as Express routes do by default. Turn it on only when every server behind the paywall routes case-sensitively (Express's `caseSensitive` routing), or a path in another case could reach a priced resource unpriced.",
  }),
  /**
   * Require HTTPS for priced routes (403 tls_required otherwise). `"except-loopback"` (default): required
   * unless the client (`req.ip`, so behind a proxy set Express's `trust proxy`) is on loopback. In code, also
   * a function of the adapter's request.
   */
  requireTls: requireTlsSetting.default("except-loopback").meta({
    description:
      "Require HTTPS for priced routes (403 tls_required otherwise). `\"except-loopback\"` (default): required unless the client (`req.ip`, so behind a proxy set Express's `trust proxy`) is on loopback. In code, also a function of the adapter's request.",
  }),
  /** Shared settings of the routes that offer `application/x402+cbor`. */
  cbor: cborSettingsSchema
    .optional()
    .meta({ description: "Shared settings of the routes that offer `application/x402+cbor`." }),
  /**
   * The page a browser gets on a priced `GET` (docs/middleware.md, "The paywall page"): `{
   * enabled?, appName?, contentSecurityPolicy? }`.
   */
  paywall: paywallPageSettingsSchema.prefault({}).meta({
    description:
      'The page a browser gets on a priced `GET` (docs/middleware.md, "The paywall page"): `{ enabled?, appName?, contentSecurityPolicy? }`.',
  }),
  /**
   * Revoked payers (refunds) are denied sign-in for `holdMs`; with a Redis ledger every instance shares them.
   */
  revocation: revocationSettingsSchema.optional().meta({
    description:
      "Revoked payers (refunds) are denied sign-in for `holdMs`; with a Redis ledger every instance shares them.",
  }),
});
export type PaywallSettings = z.infer<typeof paywallSettingsSchema>;

export type PaidEvent = {
  payer: string;
  amount: string;
  asset: string;
  network: string;
  route: string;
  transaction: string;
  /** x402+cbor through a delegation chain: the agent that signed (`payer` is the chain's root). */
  delegate?: string;
};
export type ErrorEvent = { error: unknown; code: string; route: string | undefined };

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", { error: `expected ${what} (a function)` });

/**
 * `facilitator`: an instance (verify/settle/supported, or an official FacilitatorClient) as given, else
 * settings checked by their own schema, so a refused URL is reported at `facilitator.url`.
 */
const facilitatorOption = z
  .custom<z.input<typeof facilitatorSettingsSchema> | Facilitator | FacilitatorClient>(
    (value) => typeof value === "object" && value !== null,
    {
      error:
        "expected { url, timeoutMs? }, an object with verify/settle/supported, or an official FacilitatorClient (verify/settle/getSupported)",
    },
  )
  .transform((value, ctx) => {
    if (isFacilitator(value) || isFacilitatorClient(value)) return value;
    const parsed = facilitatorSettingsSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const { path, message } of parsed.error.issues) ctx.addIssue({ code: "custom", path, message });
    return z.NEVER;
  });

/** Everything `x402()` accepts: the settings plus the objects only code can pass. */
export const x402OptionsSchema = paywallSettingsSchema
  .extend({
    /**
     * Priced routes: `"METHOD /path/:param/*"` → `{ price | accepts, description?, settle?, recognition?, cbor?
     * }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free.
     */
    routes: z.record(z.string(), codeRouteSchema).meta({
      description:
        'Priced routes: `"METHOD /path/:param/*"` → `{ price | accepts, description?, settle?, recognition?, cbor? }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free.',
    }),
    /**
     * The facilitator: settings `{ url, timeoutMs?, settleTimeoutMs?, supportedTimeoutMs?, headers? }`
     * (`headers` may be a function of the endpoint, for per-request auth), an object with
     * `verify`/`settle`/`supported`, or an official `FacilitatorClient`.
     */
    facilitator: facilitatorOption.meta({
      description:
        "The facilitator: settings `{ url, timeoutMs?, settleTimeoutMs?, supportedTimeoutMs?, headers? }` (`headers` may be a function of the endpoint, for per-request auth), an object with `verify`/`settle`/`supported`, or an official `FacilitatorClient`.",
    }),
    /**
     * Payment de-duplication store: settings (`{ type: "redis", url, keyPrefix? }` shares payments, sign-in
     * nonces and revocations between instances), or any `PaymentLedger` (reserve / release / spend). Default:
     * in memory.
     */
    ledger: z
      .union([ledgerSettingsSchema, z.custom<PaymentLedger>(isPaymentLedger)])
      .optional()
      .meta({
        description:
          'Payment de-duplication store: settings (`{ type: "redis", url, keyPrefix? }` shares payments, sign-in nonces and revocations between instances), or any `PaymentLedger` (reserve / release / spend). Default: in memory.',
      }),
    /** pino, or any `{ debug, info, warn, error }`; default silent (nothing is written to the console). */
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
      .optional()
      .meta({
        description:
          "pino, or any `{ debug, info, warn, error }`; default silent (nothing is written to the console).",
      }),
    /**
     * Called after each settlement with `{ payer, amount, asset, network, route, transaction, delegate? }`.
     */
    onPaid: fn<(event: PaidEvent) => void>("onPaid").optional().meta({
      description:
        "Called after each settlement with `{ payer, amount, asset, network, route, transaction, delegate? }`.",
    }),
    /** Called for each rejected or failed request with `{ error, code, route }`. */
    onError: fn<(event: ErrorEvent) => void>("onError").optional().meta({
      description: "Called for each rejected or failed request with `{ error, code, route }`.",
    }),
    /**
     * Metrics callbacks: `outcome`, `verifyLatency`, `settleLatency`, `facilitatorError`, `heldBytes`, and
     * the recognition cache's `lookup`, `rpcCall`, `staleServed`.
     */
    observer: z
      .custom<PaywallObserver>((value) => typeof value === "object" && value !== null)
      .optional()
      .meta({
        description:
          "Metrics callbacks: `outcome`, `verifyLatency`, `settleLatency`, `facilitatorError`, `heldBytes`, and the recognition cache's `lookup`, `rpcCall`, `staleServed`.",
      }),
    /** What resolves unknown settlements, instead of the one built from `rpcUrls`. */
    settlementChecker: z
      .custom<SettlementChecker>((value) => typeof value === "object" && value !== null)
      .optional()
      .meta({ description: "What resolves unknown settlements, instead of the one built from `rpcUrls`." }),
    /**
     * Revoked payers to use instead of the ones built from `ledger` (memory, or Redis with a Redis ledger).
     */
    revokedPayers: z
      .custom<RevokedPayers>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          typeof (value as Partial<RevokedPayers>).revoke === "function" &&
          typeof (value as Partial<RevokedPayers>).isRevoked === "function",
        { error: "expected RevokedPayers (revoke, isRevoked, deniedHere, serve, close)" },
      )
      .optional()
      .meta({
        description:
          "Revoked payers to use instead of the ones built from `ledger` (memory, or Redis with a Redis ledger).",
      }),
    /**
     * A sign-in gate to use instead of the one built from `recognition` settings; like recognition, it needs
     * `publicUrl` or `allowedHosts`.
     */
    signInGate: z
      .custom<SignInGate>((value) => typeof value === "object" && value !== null)
      .optional()
      .meta({
        description:
          "A sign-in gate to use instead of the one built from `recognition` settings; like recognition, it needs `publicUrl` or `allowedHosts`.",
      }),
    /**
     * As in the settings, or a function of the adapter's own request (Express's `Request` for `x402()`,
     * Node's `IncomingMessage` for `x402Node()`) returning whether HTTPS is required.
     */
    requireTls: z
      .union([requireTlsSetting, fn<(req: never) => boolean>("requireTls")])
      .default("except-loopback")
      .meta({
        description:
          "As in the settings, or a function of the adapter's own request (Express's `Request` for `x402()`, Node's `IncomingMessage` for `x402Node()`) returning whether HTTPS is required.",
      }),
    /** Clock, in epoch ms (tests move it). Default `Date.now`. */
    now: fn<() => number>("now")
      .optional()
      .meta({ description: "Clock, in epoch ms (tests move it). Default `Date.now`." }),
    /** `fetch` used for outbound calls. Default the global one. */
    fetch: fn<typeof fetch>("fetch")
      .optional()
      .meta({ description: "`fetch` used for outbound calls. Default the global one." }),
    /**
     * Renders the browser paywall page instead of the built-in one (the official `PaywallProvider`:
     * `generateHtml(paymentRequired, config)`).
     */
    paywallProvider: z
      .custom<PaywallProvider>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          typeof (value as Partial<PaywallProvider>).generateHtml === "function",
        { error: "expected a PaywallProvider (generateHtml)" },
      )
      .optional()
      .meta({
        description:
          "Renders the browser paywall page instead of the built-in one (the official `PaywallProvider`: `generateHtml(paymentRequired, config)`).",
      }),
    /** A CBOR facilitator to use instead of `cbor.facilitator` / `facilitator` for CBOR payments. */
    cborFacilitator: z
      .custom<CborFacilitator>(isCborFacilitator, { error: "expected verifyCbor/settleCbor" })
      .optional()
      .meta({
        description:
          "A CBOR facilitator to use instead of `cbor.facilitator` / `facilitator` for CBOR payments.",
      }),
  })
  .superRefine(paywallSettingsIssues);
/**
 * The paywall's options, whatever the adapter: a `requireTls` function receives the adapter's own request
 * `R` (Express's `Request` for `x402()`, Node's `IncomingMessage` for `x402Node()`).
 */
export type PaywallOptions<R = never> = Omit<z.input<typeof x402OptionsSchema>, "requireTls" | "routes"> & {
  /**
   * Priced routes: `"METHOD /path/:param/*"` → `{ price | accepts, description?, settle?, recognition?, cbor?
   * }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free.
   */
  routes: Record<string, RouteInput>;
  /**
   * As in the settings, or a function of the adapter's own request (Express's `Request` for `x402()`, Node's
   * `IncomingMessage` for `x402Node()`) returning whether HTTPS is required.
   */
  requireTls?: RequireTls<R>;
};
export type ResolvedX402Options = z.output<typeof x402OptionsSchema>;

export type {
  RouteConfig,
  RouteInput,
  PaymentOption,
  PaymentOptionInput,
  Price,
  AssetConfig,
} from "../pricing/routeSettings.js";
export type { RecognitionSettings } from "../recognition/recognitionSettings.js";
export type { RevocationSettings } from "../recognition/revocationSettings.js";
export type { FacilitatorSettings, FacilitatorHeaders } from "../facilitator/facilitatorSettings.js";
export type { LedgerSettings } from "../ledger/ledgerSettings.js";
export type { PaywallPageSettings, PaywallProvider } from "./paywallPageSettings.js";
