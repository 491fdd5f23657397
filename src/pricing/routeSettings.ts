import { z } from "zod/v4";
import { caip2Network, decimalIntegerString } from "../protocol/schemas.js";
import { recognitionSettingsSchema } from "../recognition/recognitionSettings.js";
import { cborRouteSchema } from "./cborRouteSettings.js";

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
