import { z } from "zod/v4";
import { isFacilitator, type Facilitator } from "../../facilitator/Facilitator.js";
import { isCborFacilitator, type CborFacilitator } from "../../facilitator/CborFacilitator.js";
import { isPaymentLedger, type PaymentLedger } from "../../ledger/PaymentLedger.js";
import { isFacilitatorClient, type FacilitatorClient } from "../../facilitator/fromFacilitatorClient.js";
import type { SignInGate } from "../../recognition/SignInGate.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";
import { hooksProblems, type PaymentHooks } from "../flow/PaymentHooks.js";
import type { Logger } from "../../common/Logger.js";
import type { SettlementChecker } from "../../facilitator/SettlementChecker.js";
import { codeRouteSchema, type RouteInput } from "../../pricing/routeSettings.js";
import {
  facilitatorListSchema,
  facilitatorSettingsSchema,
  type routedFacilitatorSettingsSchema,
} from "../../facilitator/facilitatorSettings.js";
import { ledgerSettingsSchema } from "../../ledger/ledgerSettings.js";
import { paywallSettingsIssues } from "../page/paywallSettingsIssues.js";
import type { RevokedPayers } from "../../recognition/RevokedPayers.js";
import type { PaywallProvider } from "../page/paywallPageSettings.js";
import { paywallSettingsSchema, requireTlsSetting, type RequireTls } from "../page/paywallSettingsSchema.js";

export type PaidEvent = {
  payer: string;
  amount: string;
  asset: string;
  network: string;
  /** Who was paid: the option's `payTo` (x402), or the merchant pseudonym the intent pays (x402+cbor). */
  payTo: string;
  route: string;
  transaction: string;
  /** x402+cbor through a delegation chain: the agent that signed (`payer` is the chain's root). */
  delegate?: string;
};
/** Loads the JSON Schema of a route's body (`requestBody: { openApi: true }`), given the route's key. */
export type LoadRequestBodySchema = (route: {
  key: string;
  method: string | undefined;
  path: string;
}) => Promise<{ schema: Record<string, unknown>; root?: Record<string, unknown> }>;
export type ErrorEvent = { error: unknown; code: string; route: string | undefined };

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", { error: `expected ${what} (a function)` });

/**
 * `facilitator`: an instance (verify/settle/supported, or an official FacilitatorClient) as given, else
 * settings checked by their own schema, so a refused URL is reported at `facilitator.url`.
 */
const facilitatorOption = z
  .custom<
    | z.input<typeof facilitatorSettingsSchema>
    | z.input<typeof routedFacilitatorSettingsSchema>[]
    | Facilitator
    | FacilitatorClient
  >((value) => typeof value === "object" && value !== null, {
    error:
      "expected { url, timeoutMs? }, a list of them with networks/schemes, an object with verify/settle/supported, or an official FacilitatorClient (verify/settle/getSupported)",
  })
  .transform((value, ctx) => {
    if (isFacilitator(value) || isFacilitatorClient(value)) return value;
    if (Array.isArray(value)) {
      const list = facilitatorListSchema.safeParse(value);
      if (list.success) return list.data;
      for (const { path, message } of list.error.issues) ctx.addIssue({ code: "custom", path, message });
      return z.NEVER;
    }
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
        'Priced routes: `"METHOD /path/:param/*"` (every official key form: `[param]`, `*` anywhere, no method for any) → `{ price | accepts, description?, settle?, recognition?, cbor? }` (the official `@x402/core` `RouteConfig` shapes too); anything else is free. One route config with `accepts` in place of the table prices every request.',
    }),
    /**
     * The facilitator: settings `{ url, timeoutMs?, settleTimeoutMs?, supportedTimeoutMs?, headers? }`
     * (`headers` may be a function of the endpoint, for per-request auth), a list of them each with
     * `networks?` and `schemes?` (routed by network and scheme, failing over in order), an object with
     * `verify`/`settle`/`supported`, or an official `FacilitatorClient`.
     */
    facilitator: facilitatorOption.meta({
      description:
        "The facilitator: settings `{ url, timeoutMs?, settleTimeoutMs?, supportedTimeoutMs?, headers? }` (`headers` may be a function of the endpoint, for per-request auth), a list of them each with `networks?` and `schemes?` (routed by network and scheme, failing over in order), an object with `verify`/`settle`/`supported`, or an official `FacilitatorClient`.",
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
    /**
     * Cap on a request body the paywall reads to check it against a route's `requestBody`, in bytes; larger →
     * 413 payload_too_large. Default 1 MiB (the gateway: `limits.maxBodyBytes`).
     */
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024)
      .meta({
        description:
          "Cap on a request body the paywall reads to check it against a route's `requestBody`, in bytes; larger → 413 payload_too_large. Default 1 MiB (the gateway: `limits.maxBodyBytes`).",
      }),
    /**
     * At start-up the facilitator's `/supported` is read: `warn` (default) logs each priced option it does not
     * list; `require` holds priced requests until it lists them all (`ready()` rejects; meanwhile `503
     * paywall_unavailable`, checked again at most every 10 s).
     */
    facilitatorSupport: z.enum(["warn", "require"]).default("warn").meta({
      description:
        "At start-up the facilitator's `/supported` is read: `warn` (default) logs each priced option it does not list; `require` holds priced requests until it lists them all (`ready()` rejects; meanwhile `503 paywall_unavailable`, checked again at most every 10 s).",
    }),
    /**
     * Where routes with `requestBody: { openApi: true }` get their schema, at start-up (the gateway reads its
     * upstream's OpenAPI document): `{ schema, root? }` for the route, or a rejection saying why not.
     */
    loadRequestBodySchema: fn<LoadRequestBodySchema>("loadRequestBodySchema").optional().meta({
      description:
        "Where routes with `requestBody: { openApi: true }` get their schema, at start-up (the gateway reads its upstream's OpenAPI document): `{ schema, root? }` for the route, or a rejection saying why not.",
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
     * Called after each settlement with `{ payer, amount, asset, network, payTo, route, transaction, delegate? }`.
     */
    onPaid: fn<(event: PaidEvent) => void>("onPaid").optional().meta({
      description:
        "Called after each settlement with `{ payer, amount, asset, network, payTo, route, transaction, delegate? }`.",
    }),
    /** Called for each rejected or failed request with `{ error, code, route }`. */
    onError: fn<(event: ErrorEvent) => void>("onError").optional().meta({
      description: "Called for each rejected or failed request with `{ error, code, route }`.",
    }),
    /**
     * Lifecycle hooks with the official `x402ResourceServer` semantics: `onProtectedRequest`,
     * `onBeforeVerify`, `onAfterVerify`, `onVerifyFailure`, `onBeforeSettle`, `onAfterSettle`,
     * `onSettleFailure` (each a function or a list), for both payment formats (docs/hooks.md).
     */
    hooks: z
      .custom<PaymentHooks>((value) => hooksProblems(value).length === 0, {
        error: "expected { onBeforeVerify?, onAfterVerify?, … }: each a function or a list of functions",
      })
      .optional()
      .meta({
        description:
          "Lifecycle hooks with the official `x402ResourceServer` semantics: `onProtectedRequest`, `onBeforeVerify`, `onAfterVerify`, `onVerifyFailure`, `onBeforeSettle`, `onAfterSettle`, `onSettleFailure` (each a function or a list), for both payment formats (docs/hooks.md).",
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
    /**
     * `fetch` used for outbound calls. Default the global one, except the facilitator's: without it they go
     * through a keep-alive `undici` pool on Node (Node's `http`/`https` where it will not load).
     */
    fetch: fn<typeof fetch>("fetch").optional().meta({
      description:
        "`fetch` used for outbound calls. Default the global one, except the facilitator's: without it they go through a keep-alive `undici` pool on Node (Node's `http`/`https` where it will not load).",
    }),
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
   * Priced routes: `"METHOD /path/:param/*"` (every official key form: `[param]`, `*` anywhere, no method for
   * any) → `{ price | accepts, description?, settle?, recognition?, cbor? }` (the official `@x402/core`
   * `RouteConfig` shapes too); anything else is free. One route config with `accepts` in place of the table
   * prices every request.
   */
  routes: Record<string, RouteInput> | (RouteInput & { accepts: NonNullable<RouteInput["accepts"]> });
  /**
   * As in the settings, or a function of the adapter's own request (Express's `Request` for `x402()`, Node's
   * `IncomingMessage` for `x402Node()`) returning whether HTTPS is required.
   */
  requireTls?: RequireTls<R>;
};
export type ResolvedX402Options = z.output<typeof x402OptionsSchema>;

export type { PaywallSettings, RequireTls } from "../page/paywallSettingsSchema.js";
export type {
  RouteConfig,
  RouteInput,
  PaymentOption,
  PaymentOptionInput,
  Price,
  AssetConfig,
} from "../../pricing/routeSettings.js";
export type { RecognitionSettings } from "../../recognition/recognitionSettings.js";
export type { RevocationSettings } from "../../recognition/revocationSettings.js";
export type { FacilitatorSettings, FacilitatorHeaders } from "../../facilitator/facilitatorSettings.js";
export type { LedgerSettings } from "../../ledger/ledgerSettings.js";
export type { PaywallPageSettings, PaywallProvider } from "../page/paywallPageSettings.js";
