import { z } from "zod/v4";
import { CURRENCIES } from "../protocol/cbor/profile.js";
import { decimalIntegerString } from "../protocol/schemas.js";

/** Defaults of the x402+cbor settings, written once. */
export const CBOR_DEFAULTS = {
  /** How long a CBOR PaymentRequest stays valid, in seconds (deadlines fall on whole minutes). */
  deadlineSeconds: 300,
  /** Clock difference tolerated when checking a deadline, in seconds. */
  skewSeconds: 30,
} as const;

/** What a route offers in `application/x402+cbor`; its presence turns the format on for the route. */
export const cborRouteSchema = z.strictObject({
  currency: z.enum(CURRENCIES),
  /** In the currency's smallest unit (USDC: 6 decimals, STRK: 18, strkBTC: 8). */
  amount: decimalIntegerString.refine((value) => value !== "0", "a CBOR price cannot be zero"),
  /** How the merchant is named on the wire (never the raw wallet); default `cbor.merchantPseudonym`. */
  merchantPseudonym: z.string().min(1).optional(),
  /** The route's id in the offer; default the route key, e.g. `GET /api/quote`. */
  serviceId: z.string().min(1).optional(),
  revelationMaskRef: z.string().min(1).optional(),
  claimSchemaRef: z.string().min(1).optional(),
  acceptsHumanityGate: z.boolean().optional(),
  /** Lifetime of an offer, in seconds (rounded up to the minute grid); default `cbor.deadlineSeconds`. */
  deadlineSeconds: z.number().int().min(60).optional(),
});
export type CborRouteConfig = z.infer<typeof cborRouteSchema>;

/** The CBOR facilitator: where `/verify` and `/settle` go in `application/x402+cbor`. */
export const cborFacilitatorSettingsSchema = z.strictObject({
  url: z.url({ error: "expected the CBOR facilitator's base URL" }),
  timeoutMs: z.number().int().positive().optional(),
  settleTimeoutMs: z.number().int().positive().optional(),
  supportedTimeoutMs: z.number().int().positive().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/** Settings every CBOR route shares. */
export const cborSettingsSchema = z.strictObject({
  /** Default `merchantPseudonym` of CBOR routes. */
  merchantPseudonym: z.string().min(1).optional(),
  /** Facilitator for CBOR payments; default the `facilitator` above. */
  facilitator: cborFacilitatorSettingsSchema.optional(),
  deadlineSeconds: z.number().int().min(60).default(CBOR_DEFAULTS.deadlineSeconds),
  skewSeconds: z.number().int().min(0).max(300).default(CBOR_DEFAULTS.skewSeconds),
});
export type CborSettings = z.output<typeof cborSettingsSchema>;
