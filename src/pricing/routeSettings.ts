import { z } from "zod/v4";
import { caip2Network, decimalIntegerString } from "../protocol/schemas.js";
import { recognitionSettingsSchema } from "../recognition/recognitionSettings.js";
import { bazaarDeclarationIssues } from "./bazaarDeclarationIssues.js";
import { cborRouteSchema } from "./cborRouteSettings.js";
import { passRouteSchema } from "./passRouteSettings.js";
import { discoverySchema } from "./discoverySettings.js";
import { requestBodySchema, requestBodyIssues } from "./requestBodySettings.js";
import {
  functionOf,
  responseBodySchema,
  unwritableBody,
  type DynamicPayTo,
  type DynamicPrice,
  type SettlementFailedResponseBody,
  type UnpaidResponseBody,
} from "./routeFunctions.js";

/** Defaults of the pricing settings, written once. */
export const PRICING_DEFAULTS = {
  /** `maxTimeoutSeconds` of every payment option: how long a signed authorization may take to settle. */
  maxTimeoutSeconds: 300,
} as const;

/** `"$0.01"` or `"0.01"`: an amount of the network's default asset (USDC), converted with integer arithmetic. */
export const moneyString = z
  .string()
  .regex(/^\$?(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'expected a money string such as "$0.01" or "0.01"');

/** An amount in the asset's smallest unit, with the asset's address and EIP-712 domain. */
export const atomicPriceSchema = z.strictObject({
  /**
   * Amount in the asset's smallest unit, a decimal integer string (USDC: 6 decimals, "1000000" is 1 USDC).
   */
  amount: decimalIntegerString.meta({
    description:
      'Amount in the asset\'s smallest unit, a decimal integer string (USDC: 6 decimals, "1000000" is 1 USDC).',
  }),
  /** The token contract address. */
  asset: z
    .string()
    .min(1, "expected the asset's address")
    .meta({ description: "The token contract address." }),
  /** The token's EIP-712 domain `{ name, version }` for EVM `exact` (the requirement's `extra`). */
  extra: z.record(z.string(), z.unknown()).optional().meta({
    description:
      "The token's EIP-712 domain `{ name, version }` for EVM `exact` (the requirement's `extra`).",
  }),
});

/** `0.01`: a money amount as a number, as the official packages take it (written without an exponent). */
export const moneyNumber = z
  .number()
  .positive("expected a positive amount")
  .refine((value) => /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(String(value)), {
    error: 'expected a money amount written without an exponent, such as 0.01 (or a string "$0.01")',
  });

export const priceSchema = z.union([moneyString, moneyNumber, atomicPriceSchema], {
  error: 'expected a money string ("$0.01"), a number (0.01) or { amount, asset, extra }',
});
export type Price = z.infer<typeof priceSchema>;

/** A `serviceName` or tag as the official resource info takes it: printable ASCII, 1 to 32 characters. */
const printableShort = z.string().regex(/^[\x20-\x7e]{1,32}$/, "expected 1 to 32 printable ASCII characters");

/** `exact` and `exact-pq`: EIP-3009 authorizations for the price; `upto`: a Permit2 authorization of at most the price, settled for what was used. */
export const paymentSchemeSchema = z.enum(["exact", "exact-pq", "upto"]);

const OPTION_PRICE =
  'Price of this option: a money string (`"$0.01"`) or number (`0.01`) of the network\'s default asset, or `{ amount, asset, extra }`; in `x402()`/`x402Node()` also a function of the request.';
const OPTION_PAY_TO =
  "Recipient address; default the route's, then the top-level `payTo`. In `x402()`/`x402Node()` also a function of the request.";
const ROUTE_PRICE =
  "Price of the route's first payment option; in `x402()`/`x402Node()` also a function of the request (sync or async, evaluated for the offer and again for the paid retry), never in the gateway config.";
const ROUTE_PAY_TO =
  "Recipient of the route's first option; default the top-level `payTo`. In `x402()`/`x402Node()` also a function of the request, never in the gateway config.";
const UNPAID_BODY =
  "The 402 body API clients get without a payment, `{ contentType, body }` (the offer stays in `PAYMENT-REQUIRED`; browsers still get the paywall page); in code also a function of the request.";
const SETTLEMENT_FAILED_BODY =
  "The 402 body of an answer whose settlement failed, `{ contentType, body }` (with `PAYMENT-REQUIRED` and `PAYMENT-RESPONSE`); in code also a function of the request and the failed settlement.";

/** One accepted way to pay for a route; unset fields come from the route, then from the top level. */
const paymentOptionOf = <P extends z.ZodType, T extends z.ZodType>(price: P, payTo: T) =>
  z.strictObject({
    /**
     * Price of this option: a money string (`"$0.01"`) or number (`0.01`) of the network's default asset, or
     * `{ amount, asset, extra }`; in `x402()`/`x402Node()` also a function of the request.
     */
    price: price.meta({ description: OPTION_PRICE }),
    /** `exact` (default) or `exact-pq`: an EIP-3009 authorization on EVM networks. */
    scheme: paymentSchemeSchema
      .optional()
      .meta({ description: "`exact` (default) or `exact-pq`: an EIP-3009 authorization on EVM networks." }),
    /** CAIP-2 network (`eip155:<chainId>`); default the route's, then the top-level `network`. */
    network: caip2Network.optional().meta({
      description: "CAIP-2 network (`eip155:<chainId>`); default the route's, then the top-level `network`.",
    }),
    /**
     * Recipient address; default the route's, then the top-level `payTo`. In `x402()`/`x402Node()` also a
     * function of the request.
     */
    payTo: payTo.optional().meta({ description: OPTION_PAY_TO }),
    /** How long an authorization may take to settle, in seconds; default the top-level value (300). */
    maxTimeoutSeconds: z.number().int().positive().optional().meta({
      description:
        "How long an authorization may take to settle, in seconds; default the top-level value (300).",
    }),
    /** Fields merged over the price's `extra` in the offered requirement (as `@x402/core` does). */
    extra: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "Fields merged over the price's `extra` in the offered requirement (as `@x402/core` does).",
    }),
  });

/**
 * A route's schema, with the schemas of its `price`, `payTo` and response bodies given: the config file's
 * (serialisable) and the code's (functions too) are the same otherwise.
 */
const routeOf = <P extends z.ZodType, T extends z.ZodType, U extends z.ZodType, S extends z.ZodType>(fields: {
  price: P;
  payTo: T;
  unpaidResponseBody: U;
  settlementFailedResponseBody: S;
}) =>
  z
    .strictObject({
      /**
       * Price of the route's first payment option; in `x402()`/`x402Node()` also a function of the request
       * (sync or async, evaluated for the offer and again for the paid retry), never in the gateway config.
       */
      price: fields.price.optional().meta({ description: ROUTE_PRICE }),
      /** `exact` (default) or `exact-pq` for the route's first option. */
      scheme: paymentSchemeSchema
        .optional()
        .meta({ description: "`exact` (default) or `exact-pq` for the route's first option." }),
      /** CAIP-2 network of the route's first option; default the top-level `network`. */
      network: caip2Network.optional().meta({
        description: "CAIP-2 network of the route's first option; default the top-level `network`.",
      }),
      /**
       * Recipient of the route's first option; default the top-level `payTo`. In `x402()`/`x402Node()` also a
       * function of the request, never in the gateway config.
       */
      payTo: fields.payTo.optional().meta({ description: ROUTE_PAY_TO }),
      /** How long the payer's authorization may take to settle, in seconds. Default 300. */
      maxTimeoutSeconds: z.number().int().positive().optional().meta({
        description: "How long the payer's authorization may take to settle, in seconds. Default 300.",
      }),
      /**
       * Further (or, without `price`, all) accepted payment options: one option, or a list (the official
       * `RouteConfig` shapes).
       */
      accepts: z
        .union([
          paymentOptionOf(fields.price, fields.payTo),
          z.array(paymentOptionOf(fields.price, fields.payTo)),
        ])
        .transform((accepts) => (Array.isArray(accepts) ? accepts : [accepts]))
        .optional()
        .meta({
          description:
            "Further (or, without `price`, all) accepted payment options: one option, or a list (the official `RouteConfig` shapes).",
        }),
      /** The offer's `resource.url` for this route, instead of the request's own URL. */
      resource: z.url().optional().meta({
        description: "The offer's `resource.url` for this route, instead of the request's own URL.",
      }),
      /** Name of the service, shown in the offer (`resource.serviceName`): printable ASCII, up to 32. */
      serviceName: printableShort.optional().meta({
        description:
          "Name of the service, shown in the offer (`resource.serviceName`): printable ASCII, up to 32.",
      }),
      /** Up to 5 tags, shown in the offer (`resource.tags`): each printable ASCII, up to 32. */
      tags: z.array(printableShort).max(5).optional().meta({
        description: "Up to 5 tags, shown in the offer (`resource.tags`): each printable ASCII, up to 32.",
      }),
      /** URL of an icon for the resource, shown in the offer (`resource.iconUrl`). */
      iconUrl: z.string().max(2048).optional().meta({
        description: "URL of an icon for the resource, shown in the offer (`resource.iconUrl`).",
      }),
      /**
       * Extensions declared for the route, sent as the offer's `extensions`; a `bazaar` one (e.g.
       * `declareDiscoveryExtension(...)` spread in) is checked at start-up and gets the request's method.
       */
      extensions: z.record(z.string(), z.unknown()).optional().meta({
        description:
          "Extensions declared for the route, sent as the offer's `extensions`; a `bazaar` one (e.g. `declareDiscoveryExtension(...)` spread in) is checked at start-up and gets the request's method.",
      }),
      /**
       * Bazaar discovery: what the route takes and answers, as `declareDiscoveryExtension` takes it; the offer
       * carries it as `extensions.bazaar` (JSON 402s), with the request's method and path parameters.
       */
      discovery: discoverySchema.optional().meta({
        description:
          "Bazaar discovery: what the route takes and answers, as `declareDiscoveryExtension` takes it; the offer carries it as `extensions.bazaar` (JSON 402s), with the request's method and path parameters.",
      }),
      /** What the resource is, shown in the offer (`resource.description`). */
      description: z
        .string()
        .optional()
        .meta({ description: "What the resource is, shown in the offer (`resource.description`)." }),
      /** Media type of the resource, shown in the offer (`resource.mimeType`). Default `application/json`. */
      mimeType: z.string().optional().meta({
        description:
          "Media type of the resource, shown in the offer (`resource.mimeType`). Default `application/json`.",
      }),
      /**
       * `after` (default): settle only once the handler answered 2xx. `before`: settle, then run the handler.
       */
      settle: z.enum(["after", "before"]).optional().meta({
        description:
          "`after` (default): settle only once the handler answered 2xx. `before`: settle, then run the handler.",
      }),
      /**
       * Check the request's JSON body before anything is offered, reserved or settled: `{ schema }` (JSON
       * Schema 2020-12), or, on the gateway, `{ openApi: true }` (the schema of this operation in its
       * upstream's `openApi` document). A body that breaks it is `400 invalid_request_body`.
       */
      requestBody: requestBodySchema.optional().meta({
        description:
          "Check the request's JSON body before anything is offered, reserved or settled: `{ schema }` (JSON Schema 2020-12), or, on the gateway, `{ openApi: true }` (the schema of this operation in its upstream's `openApi` document). A body that breaks it is `400 invalid_request_body`.",
      }),
      /** Let recognized payers in without paying; `false` turns a global default off for this route. */
      recognition: z
        .union([z.literal(false), recognitionSettingsSchema])
        .optional()
        .meta({
          description:
            "Let recognized payers in without paying; `false` turns a global default off for this route.",
        }),
      /** A whole HTML page a browser gets instead of the built-in paywall page, as is (as the official option); see `paywall.contentSecurityPolicy`. */
      customPaywallHtml: z.string().optional().meta({
        description:
          "A whole HTML page a browser gets instead of the built-in paywall page, as is (as the official option); see `paywall.contentSecurityPolicy`.",
      }),
      /**
       * The 402 body API clients get without a payment, `{ contentType, body }` (the offer stays in
       * `PAYMENT-REQUIRED`; browsers still get the paywall page); in code also a function of the request.
       */
      unpaidResponseBody: fields.unpaidResponseBody.optional().meta({ description: UNPAID_BODY }),
      /**
       * The 402 body of an answer whose settlement failed, `{ contentType, body }` (with `PAYMENT-REQUIRED` and
       * `PAYMENT-RESPONSE`); in code also a function of the request and the failed settlement.
       */
      settlementFailedResponseBody: fields.settlementFailedResponseBody
        .optional()
        .meta({ description: SETTLEMENT_FAILED_BODY }),
      /** Offer the route in `application/x402+cbor` too (or only, without `price`/`accepts`). */
      cbor: cborRouteSchema.optional().meta({
        description: "Offer the route in `application/x402+cbor` too (or only, without `price`/`accepts`).",
      }),
      /**
       * A metered (`upto`) route: the response header its handler or upstream reports the amount used in
       * (atomic units, at most the price). Default `X402-Usage`.
       */
      usageHeader: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,64}$/, "expected a header name")
        .optional()
        .meta({
          description:
            "A metered (`upto`) route: the response header its handler or upstream reports the amount used in (atomic units, at most the price). Default `X402-Usage`.",
        }),
      /** Paying once buys a pass: `{ requests?, seconds?, scope? }` (docs/passes.md; needs top-level `passes`). */
      pass: passRouteSchema.optional().meta({
        description:
          "Paying once buys a pass: `{ requests?, seconds?, scope? }` (docs/passes.md; needs top-level `passes`).",
      }),
    })
    .refine(
      (route) => route.price !== undefined || (route.accepts?.length ?? 0) > 0 || route.cbor !== undefined,
      { error: "a priced route needs `price`, a non-empty `accepts`, or `cbor`" },
    )
    .superRefine((route, ctx) => {
      // A static body is written once per answer: one JSON cannot write would fail every request.
      for (const field of ["unpaidResponseBody", "settlementFailedResponseBody"] as const) {
        const given = route[field] as unknown;
        if (typeof given !== "object" || given === null) continue;
        const problem = unwritableBody((given as { body?: unknown }).body);
        if (problem !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [field, "body"],
            message: `not writable as JSON: ${problem}`,
          });
      }
      for (const issue of requestBodyIssues(route.requestBody))
        ctx.addIssue({ code: "custom", path: ["requestBody", ...issue.path], message: issue.message });
      // What an `upto` payment settles is known only once the handler has answered.
      const upto =
        route.scheme === "upto" || (route.accepts ?? []).some((option) => option.scheme === "upto");
      if (upto && route.settle === "before")
        ctx.addIssue({
          code: "custom",
          path: ["settle"],
          message: "an `upto` route settles what its answer used: it cannot settle before",
        });
      // A retry is answered from the kept response, and only a held (settle-after) response is kept.
      if (route.extensions?.["payment-identifier"] !== undefined && route.settle === "before")
        ctx.addIssue({
          code: "custom",
          path: ["settle"],
          message:
            "a route that declares `payment-identifier` answers retries from its kept response: it settles after the handler (`settle: after`), not before",
        });
      if (route.extensions?.bazaar === undefined) return;
      for (const issue of bazaarDeclarationIssues(route.extensions.bazaar))
        ctx.addIssue({
          code: "custom",
          path: ["extensions", "bazaar", ...issue.path],
          message: issue.message,
        });
    });

/** The payee of a route or option in a config file: an address. */
const payeeSchema = z.string().min(1);

/** A priced route as a config file writes it (the gateway's, and `x402()`'s serialisable part). */
export const routeSchema = routeOf({
  price: priceSchema,
  payTo: payeeSchema,
  unpaidResponseBody: responseBodySchema,
  settlementFailedResponseBody: responseBodySchema,
});

/** A priced route as code writes it: `price`, `payTo` and the response bodies may be functions of the request. */
export const codeRouteSchema = routeOf({
  price: z.union([priceSchema, functionOf<DynamicPrice>("a price")], {
    error: 'expected a money string ("$0.01"), a number (0.01), { amount, asset, extra } or a function',
  }),
  payTo: z.union([payeeSchema, functionOf<DynamicPayTo>("a payTo")], {
    error: "expected an address or a function of the request",
  }),
  unpaidResponseBody: z.union([responseBodySchema, functionOf<UnpaidResponseBody>("unpaidResponseBody")]),
  settlementFailedResponseBody: z.union([
    responseBodySchema,
    functionOf<SettlementFailedResponseBody>("settlementFailedResponseBody"),
  ]),
});

/** A route after validation: code's (functions included), of which the config file's is a part. */
export type RouteConfig = z.infer<typeof codeRouteSchema>;
export type PaymentOption = NonNullable<RouteConfig["accepts"]>[number];

/**
 * A payment option as code may write it: `scheme` typed `string` like the official `PaymentOption` (so a route
 * typed with `@x402/core`'s `RouteConfig` is accepted as it is); an unknown scheme is refused at start-up.
 */
export type PaymentOptionInput = Omit<
  Extract<NonNullable<z.input<typeof codeRouteSchema>["accepts"]>, readonly unknown[]>[number],
  "scheme"
> & {
  /** `exact` (default) or `exact-pq`: an EIP-3009 authorization on EVM networks. */
  scheme?: string | undefined;
};

/** A route as code may write it: {@link RouteConfig}'s input, with `scheme` typed `string` as the official one. */
export type RouteInput = Omit<z.input<typeof codeRouteSchema>, "scheme" | "accepts"> & {
  /** `exact` (default) or `exact-pq` for the route's first option. */
  scheme?: string | undefined;
  /**
   * Further (or, without `price`, all) accepted payment options: one option, or a list (the official
   * `RouteConfig` shapes).
   */
  accepts?: PaymentOptionInput | PaymentOptionInput[] | undefined;
};

/** An asset the money-string parser may use, beyond the built-in table (e.g. a test token). */
export const assetSchema = z.strictObject({
  /** CAIP-2 network the asset lives on. */
  network: caip2Network.meta({ description: "CAIP-2 network the asset lives on." }),
  /** The token contract address. */
  address: z.string().min(1).meta({ description: "The token contract address." }),
  /** Decimals of the token (USDC: 6), used to turn money strings into smallest units. */
  decimals: z.number().int().min(0).max(36).meta({
    description: "Decimals of the token (USDC: 6), used to turn money strings into smallest units.",
  }),
  /** EIP-712 domain name and version (the requirement's `extra`). */
  name: z
    .string()
    .optional()
    .meta({ description: "EIP-712 domain name and version (the requirement's `extra`)." }),
  /** EIP-712 domain version of the token (USDC: "2"). */
  version: z.string().optional().meta({ description: 'EIP-712 domain version of the token (USDC: "2").' }),
  /** Display symbol of the token. */
  symbol: z.string().optional().meta({ description: "Display symbol of the token." }),
});
export type AssetConfig = z.infer<typeof assetSchema>;
