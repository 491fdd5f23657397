import { z } from "zod/v4";
import { caip2Network } from "../../protocol/schemas.js";
import { cborSettingsSchema } from "../../pricing/cborRouteSettings.js";
import { passesSettingsSchema } from "../passes/passesSettings.js";
import { assetSchema, PRICING_DEFAULTS, routeSchema } from "../../pricing/routeSettings.js";
import { facilitatorSettingsSchema } from "../../facilitator/facilitatorSettings.js";
import { outboundUrl } from "../../common/outboundUrl.js";
import { recognitionSettingsSchema } from "../../recognition/recognitionSettings.js";
import { revocationSettingsSchema } from "../../recognition/revocationSettings.js";
import { paywallPageSettingsSchema } from "./paywallPageSettings.js";

/** Defaults of the paywall's own settings, written once (each part's live beside its schema). */
export const DEFAULTS = {
  maxHeldResponseBytes: 8 * 1024 * 1024,
  reservationTtlMs: 5 * 60_000,
  paymentIdentifierWindowMs: 10 * 60_000,
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
/** `requireTls` as a config file can say it (code may also pass a function). */
export const requireTlsSetting = z.union([z.boolean(), z.literal("except-loopback")]);

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
      'Priced routes: `"METHOD /path/:param/*"` (every official key form: `[param]`, `*` anywhere, no method for any) → `{ price | accepts, description?, settle?, recognition?, cbor? }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free. One route config with `accepts` in place of the table prices every request.',
  }),
  /** How the passes routes sell (`routes.*.pass`) are signed: `{ secret | ed25519PrivateKey, cookieName?, maxSeconds? }`. */
  passes: passesSettingsSchema.optional().meta({
    description:
      "How the passes routes sell (`routes.*.pass`) are signed: `{ secret | ed25519PrivateKey, cookieName?, maxSeconds? }`.",
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
  /**
   * Routes that declare the `payment-identifier` extension keep each paid response this long, in ms: a
   * retry with the same identifier and the same payment gets it again, not charged twice. Default 10 min.
   */
  paymentIdentifierWindowMs: z.number().int().positive().default(DEFAULTS.paymentIdentifierWindowMs).meta({
    description:
      "Routes that declare the `payment-identifier` extension keep each paid response this long, in ms: a retry with the same identifier and the same payment gets it again, not charged twice. Default 10 min.",
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
   * default and the official matcher does. Turn it on only when every server behind the paywall routes
   * case-sensitively (Express's `caseSensitive` routing); a path that is free in its own case but priced
   * in another is then refused (`400 invalid_path`), never served free.
   */
  caseSensitivePaths: z.boolean().default(false).meta({
    description:
      "Match route paths case-sensitively (`/api/metrics/Validator` is then not `/api/metrics/validator`). Default false: literals match in any case, as Express routes do by default and the official matcher does. Turn it on only when every server behind the paywall routes case-sensitively (Express's `caseSensitive` routing); a path that is free in its own case but priced in another is then refused (`400 invalid_path`), never served free.",
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
   * enabled?, appName?, solanaRpcUrls?, contentSecurityPolicy? }`.
   */
  paywall: paywallPageSettingsSchema.prefault({}).meta({
    description:
      'The page a browser gets on a priced `GET` (docs/middleware.md, "The paywall page"): `{ enabled?, appName?, solanaRpcUrls?, contentSecurityPolicy? }`.',
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
