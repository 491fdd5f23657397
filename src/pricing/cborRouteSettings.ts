import { z } from "zod/v4";
import { outboundUrl } from "../common/outboundUrl.js";
import { DELEGATION_DEFAULTS } from "../protocol/cbor/checkDelegationChain.js";
import { CURRENCIES } from "../protocol/cbor/profile.js";
import { decimalIntegerString } from "../protocol/schemas.js";
import { humanityIssuersSchema } from "./humanityIssuers.js";

/** Defaults of the x402+cbor settings, written once. */
export const CBOR_DEFAULTS = {
  /** How long a CBOR PaymentRequest stays valid, in seconds (deadlines fall on whole minutes). */
  deadlineSeconds: 300,
  /** Clock difference tolerated when checking a deadline, in seconds. */
  skewSeconds: 30,
} as const;

/** What a route offers in `application/x402+cbor`; its presence turns the format on for the route. */
export const cborRouteSchema = z.strictObject({
  /** Currency of the CBOR price: `USDC`, `STRK` or `strkBTC`. */
  currency: z
    .enum(CURRENCIES)
    .meta({ description: "Currency of the CBOR price: `USDC`, `STRK` or `strkBTC`." }),
  /** In the currency's smallest unit (USDC: 6 decimals, STRK: 18, strkBTC: 8). */
  amount: decimalIntegerString
    .refine((value) => value !== "0", "a CBOR price cannot be zero")
    .meta({ description: "In the currency's smallest unit (USDC: 6 decimals, STRK: 18, strkBTC: 8)." }),
  /** How the merchant is named on the wire (never the raw wallet); default `cbor.merchantPseudonym`. */
  merchantPseudonym: z.string().min(1).optional().meta({
    description:
      "How the merchant is named on the wire (never the raw wallet); default `cbor.merchantPseudonym`.",
  }),
  /** The route's id in the offer; default the route key, e.g. `GET /api/quote`. */
  serviceId: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "The route's id in the offer; default the route key, e.g. `GET /api/quote`." }),
  /** `revelation_mask_ref` of the PaymentRequest (e.g. `mask:v0.3:…`). */
  revelationMaskRef: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "`revelation_mask_ref` of the PaymentRequest (e.g. `mask:v0.3:…`)." }),
  /** `claim_schema_ref` of the PaymentRequest. Default `schema:v0.3:payment-intent`. */
  claimSchemaRef: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "`claim_schema_ref` of the PaymentRequest. Default `schema:v0.3:payment-intent`." }),
  /**
   * `accepts_humanity_gate` of the PaymentRequest: CBOR payers must add a humanity claim from a trusted
   * issuer (`humanityIssuers`). Default false.
   */
  acceptsHumanityGate: z.boolean().optional().meta({
    description:
      "`accepts_humanity_gate` of the PaymentRequest: CBOR payers must add a humanity claim from a trusted issuer (`humanityIssuers`). Default false.",
  }),
  /**
   * Humanity-claim issuers this route trusts (public keys in hex); replaces `cbor.humanityIssuers` for the
   * route.
   */
  humanityIssuers: humanityIssuersSchema.optional().meta({
    description:
      "Humanity-claim issuers this route trusts (public keys in hex); replaces `cbor.humanityIssuers` for the route.",
  }),
  /** Lifetime of an offer, in seconds (rounded up to the minute grid); default `cbor.deadlineSeconds`. */
  deadlineSeconds: z.number().int().min(60).optional().meta({
    description:
      "Lifetime of an offer, in seconds (rounded up to the minute grid); default `cbor.deadlineSeconds`.",
  }),
});
export type CborRouteConfig = z.infer<typeof cborRouteSchema>;

/** The CBOR facilitator: where `/verify` and `/settle` go in `application/x402+cbor`. */
export const cborFacilitatorSettingsSchema = z.strictObject({
  /** Base URL of the CBOR facilitator (`/verify`, `/settle`, `/supported`). */
  url: outboundUrl("the CBOR facilitator's base URL").meta({
    description: "Base URL of the CBOR facilitator (`/verify`, `/settle`, `/supported`).",
  }),
  /** Timeout of CBOR `/verify`, in ms. Default 10000. */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/verify`, in ms. Default 10000." }),
  /** Timeout of CBOR `/settle`, in ms. Default 30000. */
  settleTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/settle`, in ms. Default 30000." }),
  /** Timeout of CBOR `/supported`, in ms. Default 5000. */
  supportedTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/supported`, in ms. Default 5000." }),
  /** Extra headers (e.g. auth) on every CBOR facilitator call. */
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: "Extra headers (e.g. auth) on every CBOR facilitator call." }),
});

/** How much of a `delegation_chain` CBOR payments may carry (docs/cbor.md, Delegation). */
export const delegationSettingsSchema = z.strictObject({
  /** Most grants in one delegation chain; a longer chain is `402 delegation_invalid`. Default 4. */
  maxChainLength: z.number().int().min(1).max(16).default(DELEGATION_DEFAULTS.maxChainLength).meta({
    description:
      "Most grants in one delegation chain; a longer chain is `402 delegation_invalid`. Default 4.",
  }),
  /** Most bytes of all the grants of one chain together; more is `402 delegation_invalid`. Default 32768. */
  maxChainBytes: z
    .number()
    .int()
    .min(256)
    .max(64 * 1024)
    .default(DELEGATION_DEFAULTS.maxChainBytes)
    .meta({
      description:
        "Most bytes of all the grants of one chain together; more is `402 delegation_invalid`. Default 32768.",
    }),
});

/** Settings every CBOR route shares. */
export const cborSettingsSchema = z.strictObject({
  /** Default `merchantPseudonym` of CBOR routes. */
  merchantPseudonym: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "Default `merchantPseudonym` of CBOR routes." }),
  /** Facilitator for CBOR payments; default the `facilitator` above. */
  facilitator: cborFacilitatorSettingsSchema
    .optional()
    .meta({ description: "Facilitator for CBOR payments; default the `facilitator` above." }),
  /**
   * Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64
   * characters; ML-DSA-65: 3904).
   */
  humanityIssuers: humanityIssuersSchema.optional().meta({
    description:
      "Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64 characters; ML-DSA-65: 3904).",
  }),
  /** Default lifetime of a CBOR offer, in seconds (deadlines fall on whole minutes). Default 300. */
  deadlineSeconds: z.number().int().min(60).default(CBOR_DEFAULTS.deadlineSeconds).meta({
    description:
      "Default lifetime of a CBOR offer, in seconds (deadlines fall on whole minutes). Default 300.",
  }),
  /**
   * Clock difference tolerated when checking a deadline or a delegation grant's expiry, in seconds. Default
   * 30.
   */
  skewSeconds: z.number().int().min(0).max(300).default(CBOR_DEFAULTS.skewSeconds).meta({
    description:
      "Clock difference tolerated when checking a deadline or a delegation grant's expiry, in seconds. Default 30.",
  }),
  /**
   * Payments through a `delegation_chain` (an agent paying on a root key's behalf, within each grant's scope,
   * expiry and cap): `{ maxChainLength?, maxChainBytes? }`, or `false` to refuse every chain. On by default;
   * needs a ledger that counts grants (the built-in ones do).
   */
  delegation: z
    .union([z.literal(false), delegationSettingsSchema])
    .default({
      maxChainLength: DELEGATION_DEFAULTS.maxChainLength,
      maxChainBytes: DELEGATION_DEFAULTS.maxChainBytes,
    })
    .meta({
      description:
        "Payments through a `delegation_chain` (an agent paying on a root key's behalf, within each grant's scope, expiry and cap): `{ maxChainLength?, maxChainBytes? }`, or `false` to refuse every chain. On by default; needs a ledger that counts grants (the built-in ones do).",
    }),
});
export type CborSettings = z.output<typeof cborSettingsSchema>;
